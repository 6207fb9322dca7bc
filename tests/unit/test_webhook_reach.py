"""Which addresses a webhook endpoint may reach: the setting, per environment, per address,
and what creation can refuse from the URL alone."""

from __future__ import annotations

import ipaddress
import logging

import pytest

from energyhub.config import Settings
from energyhub.domain.errors import WebhookUrlNotPublic
from energyhub.domain.webhook_reach import (
    PrivateWebhookUrls,
    Reach,
    check_endpoint_url_reach,
    endpoint_reach,
    is_loopback_address,
    may_connect,
)

NONE, SANDBOX, ALL = PrivateWebhookUrls.NONE, PrivateWebhookUrls.SANDBOX, PrivateWebhookUrls.ALL
PUBLIC, LOOPBACK, ANY = Reach.PUBLIC, Reach.PUBLIC_OR_LOOPBACK, Reach.ANY


@pytest.mark.parametrize(
    ("policy", "environment", "reach"),
    [
        (NONE, "sandbox", PUBLIC),
        (NONE, "live", PUBLIC),
        (SANDBOX, "sandbox", LOOPBACK),
        (SANDBOX, "live", PUBLIC),
        (ALL, "sandbox", ANY),
        (ALL, "live", ANY),
    ],
)
def test_endpoint_reach(policy: PrivateWebhookUrls, environment: str, reach: Reach) -> None:
    assert endpoint_reach(policy, environment) is reach


@pytest.mark.parametrize(
    ("address", "public", "loopback"),
    [
        ("8.8.8.8", True, True),
        ("2606:4700:4700::1111", True, True),
        ("127.0.0.1", False, True),
        ("127.255.255.254", False, True),
        ("::1", False, True),
        ("::ffff:127.0.0.1", False, True),
        ("0.0.0.0", False, False),  # reaches this machine on Linux, but is not loopback
        ("::", False, False),
        ("10.0.0.1", False, False),
        ("172.16.0.1", False, False),
        ("192.168.1.20", False, False),
        ("169.254.169.254", False, False),
        ("100.64.0.1", False, False),
        ("fd00::1", False, False),
        ("fe80::1", False, False),
        ("::ffff:10.0.0.1", False, False),
        ("2002:7f00:1::1", False, False),  # 6to4 of 127.0.0.1: not a loopback address here
    ],
)
def test_may_connect(address: str, public: bool, loopback: bool) -> None:
    ip = ipaddress.ip_address(address)
    assert may_connect(ip, PUBLIC) is public
    assert may_connect(ip, LOOPBACK) is loopback
    assert may_connect(ip, ANY) is True


def test_loopback_is_127_8_and_1() -> None:
    assert is_loopback_address(ipaddress.ip_address("127.8.9.10"))
    assert is_loopback_address(ipaddress.ip_address("::ffff:127.0.0.2"))
    assert not is_loopback_address(ipaddress.ip_address("128.0.0.1"))
    assert not is_loopback_address(ipaddress.ip_address("::2"))


@pytest.mark.parametrize(
    ("url", "reach", "host"),
    [
        ("http://10.0.0.5/hook", LOOPBACK, "10.0.0.5"),
        ("http://[fd00::1]:8080/", LOOPBACK, "fd00::1"),
        ("http://[fe80::1%25eth0]/", LOOPBACK, "fe80::1%25eth0"),
        ("http://127.0.0.1:9000/", PUBLIC, "127.0.0.1"),
        ("http://localhost:9000/", PUBLIC, "localhost"),
        ("http://LocalHost./", PUBLIC, "localhost."),
        ("http://api.localhost/", PUBLIC, "api.localhost"),
        ("http://[::1]/", PUBLIC, "::1"),
    ],
)
def test_creation_refuses_a_forbidden_literal(url: str, reach: Reach, host: str) -> None:
    with pytest.raises(WebhookUrlNotPublic) as refused:
        check_endpoint_url_reach(url, reach)
    error = refused.value
    assert (error.code, error.status) == ("WEBHOOK_URL_NOT_PUBLIC", 422)
    assert error.details == {"field": "body.url", "host": host, "allowed": reach.value}
    assert f"host {host} is not a public address" in error.message
    assert reach.allowed in error.message


@pytest.mark.parametrize(
    ("url", "reach"),
    [
        ("https://hooks.example.com/x", PUBLIC),  # names: at delivery, after DNS
        ("https://10.example/x", PUBLIC),
        ("https://8.8.8.8/x", PUBLIC),
        ("http://127.0.0.1:9000/", LOOPBACK),
        ("http://localhost:9000/", LOOPBACK),
        ("http://[::1]:9000/", LOOPBACK),
        ("http://10.0.0.5/", ANY),
        ("http://169.254.169.254/", ANY),
    ],
)
def test_creation_lets_through_what_it_cannot_or_need_not_refuse(url: str, reach: Reach) -> None:
    check_endpoint_url_reach(url, reach)


# --- the setting --------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _no_setting_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENERGYHUB_PRIVATE_WEBHOOK_URLS", raising=False)
    monkeypatch.delenv("ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS", raising=False)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, SANDBOX),
        ({"ENERGYHUB_PRIVATE_WEBHOOK_URLS": "none"}, NONE),
        ({"ENERGYHUB_PRIVATE_WEBHOOK_URLS": "all"}, ALL),
        ({"ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS": "true"}, ALL),  # deprecated alias
        ({"ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS": "false"}, SANDBOX),
        (
            {
                "ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS": "true",
                "ENERGYHUB_PRIVATE_WEBHOOK_URLS": "none",
            },
            NONE,  # the new setting wins
        ),
    ],
)
def test_setting_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], expected: PrivateWebhookUrls
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert Settings().private_webhook_urls is expected


def test_an_unknown_value_is_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENERGYHUB_PRIVATE_WEBHOOK_URLS", "loopback")
    with pytest.raises(ValueError, match="'none', 'sandbox' or 'all'"):
        Settings()


def test_the_deprecated_setting_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ENERGYHUB_ALLOW_PRIVATE_WEBHOOK_URLS", "true")
    with caplog.at_level(logging.WARNING, logger="energyhub.config"):
        Settings()
    assert "set ENERGYHUB_PRIVATE_WEBHOOK_URLS=all instead" in caplog.text
