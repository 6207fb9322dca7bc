"""The domain rules behind issue 18's fixes: one ceiling in two units, state that reports a
setting, the 404 that names the right path, session ids, the test event, the rotation's
overlap and the reach of a resolved host name."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.capabilities import (
    BATTERY_SETTINGS,
    STANDARD_BATTERY,
    STANDARD_CHARGER,
    Capabilities,
    DeviceType,
)
from energyhub.domain.devices import device_not_found
from energyhub.domain.errors import WebhookUrlNotPublic
from energyhub.domain.sessions import session_id_from
from energyhub.domain.setting_effects import (
    amps_for_kw,
    kw_for_amps,
    paired_settings,
    state_after_settings,
)
from energyhub.domain.webhook_reach import Reach, check_resolved_reach, host_to_resolve
from energyhub.domain.webhooks import (
    ROTATION_OVERLAP,
    TEST_EVENT,
    previous_secret_in_use,
    webhook_test_body,
)

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def test_the_ceiling_pair_converts_at_230_v_on_three_phases() -> None:
    assert kw_for_amps(16) == pytest.approx(11.04)
    assert amps_for_kw(kw_for_amps(10)) == pytest.approx(10)
    assert paired_settings(STANDARD_CHARGER, {"max_charge_rate": 11.0}) == {
        "max_charge_current": 15.9
    }
    assert paired_settings(STANDARD_CHARGER, {"max_charge_current": 16.0}) == {
        "max_charge_rate": 11.04
    }


def test_the_other_unit_stays_within_its_range() -> None:
    assert paired_settings(STANDARD_CHARGER, {"max_charge_rate": 1.4}) == {
        "max_charge_current": 6.0
    }
    assert paired_settings(STANDARD_CHARGER, {"max_charge_current": 32.0}) == {
        "max_charge_rate": 22.0
    }


def test_no_pair_without_both_settings_or_a_written_ceiling() -> None:
    assert paired_settings(STANDARD_BATTERY, {"max_charge_rate": 3.0}) == {}
    assert paired_settings(STANDARD_CHARGER, {"cable_lock": True}) == {}
    rate_only = Capabilities(STANDARD_CHARGER.commands, dict(BATTERY_SETTINGS), ())
    assert paired_settings(rate_only, {"max_charge_rate": 3.0}) == {}


def test_state_reports_the_written_floor() -> None:
    state = {"level": 50.0, "dischargeLimit": 10.0}
    assert state_after_settings(state, {"discharge_floor": 25.0}) == {
        "level": 50.0,
        "dischargeLimit": 25.0,
    }
    assert state_after_settings(state, {"export_limit": 100.0}) == state
    assert state_after_settings({}, {"discharge_floor": 25.0}) == {}, "no field, none added"


def test_a_404_names_the_path_only_for_the_callers_device_of_another_type() -> None:
    wrong = device_not_found("d1", DeviceType.EV_CHARGER, DeviceType.BATTERY)
    assert wrong.message == "Device 'd1' is an EV charger, not a battery: use /ev-charger/d1."
    assert wrong.details["path"] == "/ev-charger/d1"
    for found in (None, DeviceType.BATTERY):
        plain = device_not_found("d1", found, DeviceType.BATTERY)
        assert "path" not in plain.details
        assert plain.message == "No device with this id is visible to this API key."


def test_session_ids_have_one_format() -> None:
    assert session_id_from("ab" * 20) == "ses_" + "ab" * 12


def test_the_test_event_and_the_rotation_overlap() -> None:
    assert TEST_EVENT == "webhook.test"
    assert webhook_test_body("we_1", "2026-11-25T12:00:00.000Z") == {
        "endpointId": "we_1",
        "sentAt": "2026-11-25T12:00:00.000Z",
        "test": True,
    }
    until = NOW + ROTATION_OVERLAP
    assert timedelta(hours=24) == ROTATION_OVERLAP
    assert previous_secret_in_use("old", until, NOW) == "old"
    assert previous_secret_in_use("old", until, until) is None
    assert previous_secret_in_use(None, until, NOW) is None
    assert previous_secret_in_use("old", None, NOW) is None


def test_a_resolved_name_must_reach_only_allowed_addresses() -> None:
    assert host_to_resolve("https://hooks.acme.example/x") == "hooks.acme.example"
    assert host_to_resolve("http://127.0.0.1/x") is None
    assert host_to_resolve("http://localhost:9/x") is None
    public = [ipaddress.ip_address("93.184.215.14")]
    check_resolved_reach("h.example", public, Reach.PUBLIC)
    check_resolved_reach("h.example", [], Reach.PUBLIC)
    loopback = [ipaddress.ip_address("127.0.0.1")]
    check_resolved_reach("h.example", loopback, Reach.PUBLIC_OR_LOOPBACK)
    with pytest.raises(WebhookUrlNotPublic) as refused:
        check_resolved_reach("h.example", [*public, *loopback], Reach.PUBLIC)
    assert "resolves to an address that is not public" in refused.value.message
    assert refused.value.details == {"field": "body.url", "host": "h.example", "allowed": "public"}
