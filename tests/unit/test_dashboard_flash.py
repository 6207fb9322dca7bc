"""The dashboard's flash cookie (Post/Redirect/Get): only the session that sent the form
reads it, only on the page it names, for 60 s; a cookie too large drops what it can lose."""

from __future__ import annotations

from starlette.requests import Request

from energyhub.web.dashboard.flash import FLASH_AGE_S, MAX_COOKIE_BYTES, seal, take_flash

SESSION = "session-token-of-ada"
PAGE = "/dashboard/sandbox/devices/d1"
SENT_AT = 1_800_000_000


def get(path: str, cookie: str) -> Request:
    return Request(
        {
            "type": "http",
            "method": "GET",
            "path": path,
            "query_string": b"",
            "headers": [(b"cookie", f"energyhub_flash={cookie}".encode())],
        }
    )


def test_the_page_it_names_reads_it_once_within_a_minute() -> None:
    sealed = seal(SESSION, PAGE, {"title": "Command sent", "newKey": "sk_test_x"}, SENT_AT)
    assert "sk_test_x" not in sealed, "sealed, not only signed"
    opened, drop = take_flash(get(PAGE, sealed), "energyhub_flash", SESSION, SENT_AT + 59)
    assert opened == {"title": "Command sent", "newKey": "sk_test_x"}
    assert drop
    late = take_flash(get(PAGE, sealed), "energyhub_flash", SESSION, SENT_AT + FLASH_AGE_S + 1)
    assert late == (None, True)


def test_another_session_or_page_does_not_read_it() -> None:
    sealed = seal(SESSION, PAGE, {"title": "Command sent"}, SENT_AT)
    assert take_flash(get(PAGE, sealed), "energyhub_flash", "someone-else", SENT_AT) == (
        None,
        True,
    )
    other_page = take_flash(
        get("/dashboard/sandbox/keys", sealed), "energyhub_flash", SESSION, SENT_AT
    )
    assert other_page == (None, False), "left for the page it names"
    forged = take_flash(get(PAGE, sealed[:-4] + "AAAA"), "energyhub_flash", SESSION, SENT_AT)
    assert forged == (None, True)


def test_a_cookie_too_large_leaves_out_the_refilled_values_first() -> None:
    outcome = {
        "title": "That did not work",
        "details": ["parameter: power"],
        "values": {"p.power": "9", "note": "x" * 4000},
    }
    sealed = seal(SESSION, PAGE, outcome, SENT_AT)
    assert len(sealed) <= MAX_COOKIE_BYTES
    opened, _ = take_flash(get(PAGE, sealed), "energyhub_flash", SESSION, SENT_AT)
    assert opened == {**outcome, "values": {"p.power": "9"}}
