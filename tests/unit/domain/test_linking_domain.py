"""The linking rules of `domain/linking.py`: fields, codes, redirect URIs, steps, state."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.linking import (
    LINK_SESSION_TTL,
    MFA_CODE_TTL,
    CodeCheck,
    FlowState,
    LinkSession,
    LinkStep,
    Outcome,
    SessionStatus,
    back_from,
    check_code,
    check_redirect_uri,
    choose_devices,
    first_step,
    outcome_url,
    progress,
)
from energyhub.domain.vendors import (
    VENDORS_BY_ID,
    OfferedDevice,
    check_credentials,
    mask_email,
    public_values,
    vendor_in,
    vendors_for,
)

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
OFFERED = (
    OfferedDevice("A-1", "First", "Model A", DeviceType.BATTERY, "battery"),
    OfferedDevice("B-2", "Second", "Model B", DeviceType.BATTERY, "battery-minimal"),
)


def test_vendors_are_offered_per_environment_and_type() -> None:
    sandbox = {v.id for v in vendors_for(Environment.SANDBOX)}
    assert sandbox == {"sandbox-volta", "sandbox-ampere", "sandbox-nimbus"}
    assert [v.id for v in vendors_for(Environment.LIVE, DeviceType.EV_CHARGER)] == ["ocpp"]
    assert [v.id for v in vendors_for(Environment.SANDBOX, DeviceType.EV_CHARGER)] == [
        "sandbox-ampere"
    ]
    assert vendor_in(Environment.LIVE, "sandbox-volta") is None
    assert vendor_in(Environment.SANDBOX, "sandbox-nimbus") is VENDORS_BY_ID["sandbox-nimbus"]
    assert VENDORS_BY_ID["sandbox-nimbus"].mfa


NO_EMAIL = "Enter your e-mail address."
BAD_EMAIL = "Enter an e-mail address like name@example.com."
BAD_ID = "Use only letters, digits, '.', '_' or '-'."
LONG_PASSWORD = "The charger password must be at most 40 characters."
BAD_PORT = "Enter a whole number from 1 to 65535."
BAD_UNIT = "Enter a whole number from 0 to 255."
BAD_HOST = "Enter a host name like battery.local or an IP address like 192.168.1.40."


@pytest.mark.parametrize(
    ("vendor", "form", "errors"),
    [
        ("sandbox-volta", {"email": " a@b.co ", "password": " p "}, {}),
        ("sandbox-volta", {}, {"email": NO_EMAIL, "password": "Enter your password."}),
        ("sandbox-volta", {"email": "ab.co", "password": "x"}, {"email": BAD_EMAIL}),
        ("ocpp", {"charge_point_id": "CP-1", "password": "x" * 16}, {}),
        (
            "ocpp",
            {"charge_point_id": "CP 1", "password": "x" * 41},
            {"charge_point_id": BAD_ID, "password": LONG_PASSWORD},
        ),
        ("sunspec", {"host": "192.168.1.40", "port": "502", "unit_id": "1"}, {}),
        (
            "sunspec",
            {"host": "battery.local", "port": "0", "unit_id": "256"},
            {"port": BAD_PORT, "unit_id": BAD_UNIT},
        ),
        (
            "sunspec",
            {"host": "-bad-", "port": "5o2", "unit_id": "1"},
            {"host": BAD_HOST, "port": BAD_PORT},
        ),
    ],
)
def test_credentials_are_checked_field_by_field(
    vendor: str, form: dict[str, str], errors: dict[str, str]
) -> None:
    values, found = check_credentials(VENDORS_BY_ID[vendor], form)
    assert found == errors
    if not errors and vendor == "sandbox-volta":
        assert values == {"email": "a@b.co", "password": " p "}, "passwords are kept as typed"
    if not errors and vendor == "sunspec":
        assert values == {"host": "192.168.1.40", "port": 502, "unit_id": 1}


def test_secrets_are_never_public() -> None:
    vendor = VENDORS_BY_ID["sandbox-volta"]
    assert public_values(vendor, {"email": "a@b.co", "password": "p"}) == {"email": "a@b.co"}
    assert mask_email("user@nimbus.test") == "u***@nimbus.test"
    assert mask_email("no-at-sign") == "***"


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("https://app.example.com/done?x=1", None),
        ("http://localhost:3000/cb", None),
        ("ftp://app.example.com/", "must be an absolute http:// or https:// URL"),
        ("app.example.com/done", "must be an absolute http:// or https:// URL"),
        ("https://u:p@app.example.com/", "may not carry a user name or password"),
        ("https://app.example.com/#top", "may not have a #fragment"),
        ("https://app.example.com/a b", "may not contain spaces or control characters"),
        ("https://app.example.com/?\u001d", "may not contain spaces or control characters"),
        ("https://app.example.com/\ufeff", "may not contain spaces or control characters"),
        ("https://app.example.com/\x7f", "may not contain spaces or control characters"),
        ("https://[::1/", "is not a valid URL"),
        ("https://x.example/" + "a" * 2048, "must be at most 2048 characters"),
    ],
)
def test_redirect_uris(uri: str, why: str | None) -> None:
    assert check_redirect_uri(uri) == why


def test_the_outcome_is_added_to_the_redirect_query() -> None:
    url = outcome_url("https://app.example.com/cb?state=abc", Outcome.SUCCESS, "la_1")
    assert url == "https://app.example.com/cb?state=abc&status=success&linkedAccountId=la_1"
    assert outcome_url("https://a.example/", Outcome.USER_CANCELLED, None) == (
        "https://a.example/?status=error&error=user_cancelled"
    )
    assert Outcome.REVOKED.query("la_2") == {"status": "revoked", "linkedAccountId": "la_2"}


def test_codes_expire_and_run_out() -> None:
    state = FlowState(mfa_issued_at=NOW, mfa_attempts=0)
    assert check_code(state, NOW + MFA_CODE_TTL, True) is CodeCheck.ACCEPTED
    assert check_code(state, NOW + MFA_CODE_TTL + timedelta(seconds=1), True) is CodeCheck.EXPIRED
    assert check_code(state, NOW, False) is CodeCheck.WRONG
    assert check_code(replace(state, mfa_attempts=2), NOW, False) is CodeCheck.EXHAUSTED
    assert check_code(FlowState(), NOW, True) is CodeCheck.EXPIRED


def test_devices_are_chosen_from_those_offered() -> None:
    state = FlowState(offered=OFFERED)
    assert choose_devices(state, ["B-2", "A-1"]) == ("A-1", "B-2")
    assert choose_devices(state, []) is None
    assert choose_devices(state, ["A-1", "C-3"]) is None
    assert [d.name for d in replace(state, selected=("B-2",)).picked()] == ["Second"]


def test_steps_progress_and_back() -> None:
    assert first_step(False) is LinkStep.DEVICE_TYPE
    assert first_step(True) is LinkStep.CREDENTIALS
    assert progress(LinkStep.MFA, False) == (3, 5)
    assert progress(LinkStep.MFA, True) == (1, 3)
    assert progress(LinkStep.REVOKE, False) is None
    assert back_from(LinkStep.CREDENTIALS, True) is None
    assert back_from(LinkStep.CREDENTIALS, False) is LinkStep.VENDOR
    assert back_from(LinkStep.CONSENT, True) is LinkStep.DEVICES
    assert back_from(LinkStep.DEVICE_TYPE, False) is None
    assert {s for s in LinkStep if s.terminal} == {
        LinkStep.DONE,
        LinkStep.CANCELLED,
        LinkStep.REVOKED,
    }


def test_flow_state_round_trips_through_json() -> None:
    state = FlowState(
        device_type=DeviceType.BATTERY,
        vendor="sandbox-nimbus",
        identity="user@nimbus.test",
        public_values={"email": "user@nimbus.test"},
        mfa_destination="u***@nimbus.test",
        mfa_issued_at=NOW,
        mfa_attempts=1,
        offered=OFFERED,
        selected=("A-1",),
        revoke_id="la_1",
    )
    assert FlowState.from_json(state.to_json()) == state
    assert FlowState.from_json(None) == FlowState()
    signed_out = state.signed_out()
    assert (signed_out.identity, signed_out.offered, signed_out.mfa_attempts) == (None, (), 0)
    assert signed_out.vendor == "sandbox-nimbus"


def test_a_session_is_open_until_it_expires_or_is_used() -> None:
    session = LinkSession(
        id="lnk_1",
        account_id="acc_1",
        environment=Environment.SANDBOX,
        user_id="u",
        email=None,
        redirect_uri=None,
        vendor=None,
        step=LinkStep.DEVICE_TYPE,
        state=FlowState(),
        nonce="n",
        created_at=NOW,
        expires_at=NOW + LINK_SESSION_TTL,
        updated_at=NOW,
    )
    assert session.status_at(NOW + LINK_SESSION_TTL - timedelta(seconds=1)) is SessionStatus.OPEN
    assert session.status_at(NOW + LINK_SESSION_TTL) is SessionStatus.EXPIRED
    assert replace(session, used_at=NOW).status_at(NOW) is SessionStatus.USED
    assert replace(session, step=LinkStep.CANCELLED).status_at(NOW) is SessionStatus.USED
