"""Webhook rules: retry timing, event filters, signing secrets, endpoint URLs, public addresses."""

from __future__ import annotations

import base64
import ipaddress
import random

import pytest
from standardwebhooks import Webhook

from energyhub.domain.errors import InvalidRequest
from energyhub.domain.webhooks import (
    DEFAULT_RETRY_SCHEDULE_S,
    MAX_URL_LENGTH,
    DeliveryStatus,
    EventType,
    endpoint_accepts,
    is_public_address,
    new_signing_secret,
    retry_delay,
    validate_endpoint_url,
)

# --- enums -------------------------------------------------------------------------------------


def test_event_and_status_names_are_the_wire_names() -> None:
    assert [e.value for e in EventType] == [
        "push.completed",
        "push.failed",
        "device.connected",
        "device.reconnected",
        "device.disconnected",
    ]
    assert [s.value for s in DeliveryStatus] == ["pending", "succeeded", "failed"]
    assert EventType("push.failed") is EventType.PUSH_FAILED


# --- retries -----------------------------------------------------------------------------------


def test_default_schedule_is_the_contract_one() -> None:
    assert DEFAULT_RETRY_SCHEDULE_S == (5, 300, 1800, 7200, 18000, 36000, 36000, 36000, 36000)


@pytest.mark.parametrize("attempts_made", range(1, len(DEFAULT_RETRY_SCHEDULE_S) + 1))
def test_delay_after_nth_failure_is_nth_entry_within_ten_percent_either_way(
    attempts_made: int,
) -> None:
    rng = random.Random(attempts_made)
    base = DEFAULT_RETRY_SCHEDULE_S[attempts_made - 1]
    delays = [retry_delay(attempts_made, DEFAULT_RETRY_SCHEDULE_S, rng) for _ in range(2000)]
    values = [d for d in delays if d is not None]
    assert len(values) == len(delays)
    assert all(base * 0.9 <= d <= base * 1.1 for d in values)
    # symmetric jitter: both earlier and later than the schedule, centred on it
    assert min(values) < base * 0.92
    assert max(values) > base * 1.08
    assert sum(values) / len(values) == pytest.approx(base, rel=0.01)


def test_delay_is_reproducible_with_a_seeded_random() -> None:
    first = [retry_delay(n, DEFAULT_RETRY_SCHEDULE_S, random.Random(42)) for n in range(1, 10)]
    again = [retry_delay(n, DEFAULT_RETRY_SCHEDULE_S, random.Random(42)) for n in range(1, 10)]
    assert first == again


def test_schedule_exhausted_means_no_further_attempt() -> None:
    rng = random.Random(0)
    assert retry_delay(len(DEFAULT_RETRY_SCHEDULE_S), DEFAULT_RETRY_SCHEDULE_S, rng) is not None
    assert retry_delay(len(DEFAULT_RETRY_SCHEDULE_S) + 1, DEFAULT_RETRY_SCHEDULE_S, rng) is None
    assert retry_delay(2, (1.0,), rng) is None
    assert retry_delay(1, (), rng) is None


def test_zero_schedule_retries_at_once() -> None:
    """Tests configure a schedule of zeros; jitter of zero stays zero."""
    assert retry_delay(1, (0, 0), random.Random(1)) == 0.0


def test_attempt_count_starts_at_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        retry_delay(0, DEFAULT_RETRY_SCHEDULE_S, random.Random(0))


# --- filters -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("events_filter", "event", "accepted"),
    [
        (None, EventType.PUSH_COMPLETED, True),
        ([], EventType.DEVICE_DISCONNECTED, True),
        (["push.completed"], EventType.PUSH_COMPLETED, True),
        (["push.completed"], "push.completed", True),
        (["push.completed"], EventType.PUSH_FAILED, False),
        (("device.connected", "device.reconnected"), EventType.DEVICE_RECONNECTED, True),
        (("device.connected", "device.reconnected"), EventType.DEVICE_DISCONNECTED, False),
    ],
)
def test_endpoint_filter(
    events_filter: list[str] | tuple[str, ...] | None, event: EventType | str, accepted: bool
) -> None:
    assert endpoint_accepts(events_filter, event) is accepted


# --- secrets -----------------------------------------------------------------------------------


def test_signing_secret_is_whsec_base64_of_24_bytes_and_usable() -> None:
    secret = new_signing_secret()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 24
    Webhook(secret)  # standardwebhooks accepts it
    assert len({new_signing_secret() for _ in range(100)}) == 100


# --- endpoint URLs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/energyhub",
        "http://hooks.example.com:8080/a/b?x=1&y=2",
        "HTTPS://Hooks.Example.com/",
        "http://127.0.0.1:9000/hook",  # privacy is checked at delivery, not here
        "http://[2001:db8::1]:8443/hook",
        "https://xn--bcher-kva.example/",
        "https://example.com/" + "a" * (MAX_URL_LENGTH - len("https://example.com/")),
    ],
)
def test_valid_endpoint_urls(url: str) -> None:
    assert validate_endpoint_url(url) == url


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("", "must not be empty"),
        ("https://example.com/" + "a" * (MAX_URL_LENGTH - 19), "at most 2048"),
        ("ftp://example.com/x", "scheme must be http or https"),
        ("file:///etc/passwd", "scheme must be http or https"),
        ("javascript:alert(1)", "scheme must be http or https"),
        ("example.com/hook", "scheme must be http or https"),
        ("https:///path-only", "must name a host"),
        ("https://:8080/x", "must name a host"),
        ("https://user:s3cret@example.com/", "credentials"),
        ("https://token@example.com/", "credentials"),
        ("https://example.com:99999/", "not a valid URL"),
        ("https://example.com:abc/", "not a valid URL"),
        ("https://example.com:0/", "port must be"),
        ("https://exa mple.com/", "spaces or control characters"),
        ("https://example.com/\nx", "spaces or control characters"),
        ("https://[::1/", "not a valid URL"),
        ("https://[fe80::zz]/", "not a valid"),
        ("http://2130706433/", "dotted-quad"),
        ("http://127.1/", "dotted-quad"),
        ("http://0x7f.0.0.1/", "dotted-quad"),
    ],
)
def test_invalid_endpoint_urls_are_400_naming_the_field(url: str, reason: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        validate_endpoint_url(url)
    error = caught.value
    assert (error.code, error.status) == ("INVALID_REQUEST", 400)
    [detail] = error.details["errors"]
    assert detail["path"] == "body.url"
    assert reason in detail["message"]
    assert "s3cret" not in f"{error.message} {error.details}"  # the URL is not echoed back


def test_field_name_can_be_chosen() -> None:
    with pytest.raises(InvalidRequest) as caught:
        validate_endpoint_url("ftp://x", field="body.endpoints[0].url")
    assert caught.value.details["errors"][0]["path"] == "body.endpoints[0].url"


# --- addresses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("1.1.1.1", True),
        ("172.32.0.1", True),
        ("100.128.0.1", True),
        ("2606:4700:4700::1111", True),
        ("::ffff:8.8.8.8", True),  # mapped public v4
        ("2002:808:808::1", True),  # 6to4 of 8.8.8.8
        ("64:ff9b::808:808", True),  # NAT64 of 8.8.8.8
        ("10.0.0.1", False),
        ("172.16.0.1", False),
        ("172.31.255.255", False),
        ("192.168.1.1", False),
        ("127.0.0.1", False),
        ("127.255.255.254", False),
        ("169.254.169.254", False),  # link-local, cloud metadata
        ("100.64.0.1", False),  # CGNAT
        ("100.127.255.255", False),
        ("0.0.0.0", False),
        ("0.1.2.3", False),
        ("224.0.0.1", False),
        ("239.255.255.250", False),
        ("240.0.0.1", False),
        ("255.255.255.255", False),
        ("192.0.0.8", False),
        ("192.0.2.1", False),
        ("198.18.0.1", False),
        ("198.51.100.7", False),
        ("203.0.113.9", False),
        ("::", False),
        ("::1", False),
        ("::127.0.0.1", False),  # IPv4-compatible (deprecated)
        ("fe80::1", False),
        ("fe80::1%eth0", False),
        ("fec0::1", False),
        ("fc00::1", False),
        ("fd12:3456::1", False),
        ("ff02::1", False),
        ("100::1", False),
        ("2001:db8::1", False),
        ("2001::1", False),  # Teredo
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.1.2.3", False),
        ("::ffff:169.254.169.254", False),
        ("::ffff:100.64.0.1", False),
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("2002:a00:1::", False),  # 6to4 of 10.0.0.1
        ("64:ff9b::a00:1", False),  # NAT64 of 10.0.0.1
        ("64:ff9b::7f00:1", False),  # NAT64 of 127.0.0.1
        ("64:ff9b:1::1", False),  # local-use NAT64
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(ipaddress.ip_address(address)) is public
