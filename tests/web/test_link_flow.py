"""The hosted Link UI in a real browser (issue 6): Playwright drives Debian's Chromium
against the service served by uvicorn, through each sandbox vendor's flow, every error
branch, revocation, keyboard-only use and a 375 px wide phone screen. The server runs with
a fake clock, so expiry is tested without waiting."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import select

from energyhub.domain.clock import FakeClock
from energyhub.persistence.tables import webhook_events
from tests.processes import start_service
from tests.web.support import NO_CHROMIUM, ApiCustomer, ThreadedService, chromium_path

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
Browser = sync_api.Browser
Page = sync_api.Page
expect = sync_api.expect

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason=NO_CHROMIUM),
]

APP_URL = "https://app.example.com/linked"
START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedService]:
    running = ThreadedService(tmp_path_factory.mktemp("link-ui"), FakeClock(START)).start()
    try:
        yield running
    finally:
        running.stop()


def new_page(browser: Browser, width: int = 1024, height: int = 800) -> Page:
    """A fresh browser profile whose visits to the customer's app are answered locally."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    context.route(
        "https://app.example.com/**",
        lambda route: route.fulfill(
            status=200, content_type="text/html", body="<title>App</title><p>Back in the app"
        ),
    )
    return context.new_page()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    opened = new_page(browser)
    try:
        yield opened
    finally:
        opened.context.close()


class Customer(ApiCustomer):
    """A customer account that sends its users to link their devices."""

    def link(self, user_id: str = "ada", **body: Any) -> str:
        response = self.http.post("/link-sessions", json={"userId": user_id, **body})
        assert response.status_code == 201, response.text
        url: str = response.json()["data"]["linkUrl"]
        return url

    def linked_accounts(self, user_id: str = "ada") -> list[dict[str, Any]]:
        response = self.http.get(f"/users/{user_id}/linked-accounts")
        assert response.status_code == 200, response.text
        items: list[dict[str, Any]] = response.json()["data"]["items"]
        return items

    def device(self, kind: str, device_id: str) -> dict[str, Any]:
        response = self.http.get(f"/{kind}/{device_id}")
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()["data"]
        return data

    def events(self, kind: str) -> list[dict[str, Any]]:
        container = self.service.container
        assert container is not None

        async def read() -> list[dict[str, Any]]:
            async with container.engine.connect() as connection:
                rows = await connection.execute(
                    select(webhook_events.c.payload)
                    .where(
                        webhook_events.c.type == kind,
                        webhook_events.c.account_id == self.account_id,
                    )
                    .order_by(webhook_events.c.pk)
                )
                return [dict(r.payload) for r in rows]

        return self.service.call(read())


@pytest.fixture
def customer(service: ThreadedService) -> Iterator[Customer]:
    with Customer(service) as made:
        yield made


# --- helpers that act as a user would ----------------------------------------------------------
def at(page: Page, heading: str) -> None:
    """The page shown is the one with this main heading (waits for it to load)."""
    expect(page.locator("h1")).to_have_text(heading)


def shows_errors(page: Page, *messages: str | re.Pattern[str]) -> None:
    """The error summary lists exactly these messages (waits for the page to show them)."""
    expect(page.get_by_role("alert").locator("li")).to_have_text(list(messages))


def choose_vendor(page: Page, device_type: str, vendor: str) -> None:
    page.get_by_label(device_type).check()
    page.get_by_role("button", name="Continue").click()
    page.get_by_label(vendor).check()
    page.get_by_role("button", name="Continue").click()


def sign_in(page: Page, email: str, password: str) -> None:
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def pick(page: Page, *names: str) -> None:
    for name in names:
        page.get_by_label(name).check()
    page.get_by_role("button", name="Continue").click()


def finish_query(page: Page) -> dict[str, list[str]]:
    """Follows "Continue to <app>" and returns the query the customer's app received."""
    page.get_by_role("link", name=re.compile(r"^(Continue|Return) to ")).click()
    page.wait_for_url("https://app.example.com/**")
    return parse_qs(urlsplit(page.url).query)


# --- each sandbox vendor, end to end -----------------------------------------------------------
def test_a_battery_from_volta_is_linked_and_the_user_returns_to_the_app(
    page: Page, customer: Customer
) -> None:
    page.goto(customer.link(redirectUri=APP_URL))
    expect(page).to_have_title("What do you want to connect? \N{EN DASH} Acme Energy")
    expect(page.locator(".masthead-app")).to_have_text("Acme Energy")
    expect(page.get_by_text("Step 1 of 5")).to_be_visible()
    choose_vendor(page, "Home battery", "Volta Energy")
    at(page, "Sign in to Volta Energy")
    sign_in(page, "user@volta.test", "volta-pass")
    at(page, "Choose the devices to connect")
    pick(page, "Garage battery", "Barn battery")
    at(page, "Allow Acme Energy to use your devices?")
    expect(page.get_by_text("Start, stop and schedule charging and discharging")).to_be_visible()
    expect(page.get_by_text("VH-1001")).to_be_visible()
    page.get_by_role("button", name="Allow", exact=True).click()
    at(page, "Your devices are connected")

    [account] = customer.linked_accounts()
    assert finish_query(page) == {"status": ["success"], "linkedAccountId": [account["id"]]}
    assert account["vendor"] == "sandbox-volta"
    assert len(account["deviceIds"]) == 2
    battery = customer.device("battery", account["deviceIds"][0])
    assert battery["sync"]["available"] is True
    assert battery["metadata"]["model"] == "Volta Home 13.5"
    connected = customer.events("device.connected")
    assert [e["deviceId"] for e in connected] == account["deviceIds"]


def test_a_charger_from_ampere_after_a_wrong_password_an_outage_and_nothing_picked(
    page: Page, customer: Customer
) -> None:
    page.goto(customer.link(redirectUri=APP_URL))
    choose_vendor(page, "EV charger", "Ampere Charging")
    sign_in(page, "user@ampere.test", "not-the-password")
    shows_errors(page, "The e-mail address or password is not correct. Check them and try again.")
    expect(page).to_have_title(re.compile("^Error: Sign in"))
    expect(page.get_by_label("E-mail address")).to_have_value("user@ampere.test")
    expect(page.get_by_label("Password")).to_have_value("")
    sign_in(page, "outage@ampere.test", "ampere-pass")
    shows_errors(page, "Ampere Charging is not answering right now. Try again in a few minutes.")
    page.get_by_label("E-mail address").fill("")
    page.get_by_role("button", name="Sign in").click()
    shows_errors(page, "Enter your e-mail address.", "Enter your password.")
    page.get_by_role("link", name="Enter your e-mail address.").click()
    expect(page.get_by_label("E-mail address")).to_be_focused()
    sign_in(page, "user@ampere.test", "ampere-pass")
    page.get_by_role("button", name="Continue").click()
    shows_errors(page, "Choose at least one device to connect.")
    pick(page, "Driveway charger")
    page.get_by_role("button", name="Allow", exact=True).click()
    at(page, "Your devices are connected")
    [account] = customer.linked_accounts()
    charger = customer.device("ev-charger", account["deviceIds"][0])
    assert charger["metadata"]["model"] == "Ampere Wallbox 22"
    assert charger["vehicle"] is not None


def test_a_battery_from_nimbus_with_a_wrong_an_expired_and_a_right_code(
    page: Page, customer: Customer, service: ThreadedService
) -> None:
    page.goto(customer.link())
    choose_vendor(page, "Home battery", "Nimbus Power")
    sign_in(page, "user@nimbus.test", "nimbus-pass")
    at(page, "Enter the code from Nimbus Power")
    expect(page.get_by_text("sent a 6-digit code to u***@nimbus.test")).to_be_visible()
    code = page.get_by_label("Verification code")
    expect(code).to_have_attribute("autocomplete", "one-time-code")
    code.fill("654321")
    page.get_by_role("button", name="Continue").click()
    shows_errors(page, "That code is not right. 2 tries left.")
    expect(page.get_by_label("Verification code")).to_have_attribute("aria-invalid", "true")
    service.clock.advance(timedelta(minutes=6))
    page.get_by_label("Verification code").fill("123456")
    page.get_by_role("button", name="Continue").click()
    shows_errors(page, "That code has expired. We sent you a new one: enter it below.")
    page.get_by_role("button", name="Send a new code").click()
    expect(page.get_by_role("status")).to_have_text("We sent a new code to u***@nimbus.test.")
    page.get_by_label("Verification code").fill("123456")
    page.get_by_role("button", name="Continue").click()
    pick(page, "Home battery")
    page.get_by_role("button", name="Allow", exact=True).click()
    at(page, "Your devices are connected")
    expect(page.get_by_text("You can close this page now.")).to_be_visible()
    [account] = customer.linked_accounts()
    assert customer.device("battery", account["deviceIds"][0])["vendor"] == "sandbox-nimbus"


def test_too_many_wrong_codes_and_a_locked_account(page: Page, customer: Customer) -> None:
    page.goto(customer.link(vendor="sandbox-nimbus"))
    expect(page.get_by_text("Step 1 of 3")).to_be_visible()
    sign_in(page, "user@nimbus.test", "nimbus-pass")
    for _ in range(3):
        page.get_by_label("Verification code").fill("000000")
        page.get_by_role("button", name="Continue").click()
    shows_errors(page, "Too many wrong codes. Sign in again to get a new code.")
    at(page, "Sign in to Nimbus Power")
    page.goto(customer.link(vendor="sandbox-volta"))
    sign_in(page, "locked@volta.test", "volta-pass")
    shows_errors(page, re.compile("^Volta Energy has locked this account"))


# --- links that cannot be used --------------------------------------------------------------
def test_expired_used_and_unknown_links_say_so(
    page: Page, customer: Customer, service: ThreadedService
) -> None:
    expiring = customer.link(redirectUri=APP_URL)
    page.goto(expiring)
    choose_vendor(page, "Home battery", "Volta Energy")
    service.clock.advance(timedelta(hours=24))
    sign_in(page, "user@volta.test", "volta-pass")
    at(page, "This link has expired")
    assert finish_query(page) == {"status": ["error"], "error": ["link_expired"]}

    page.goto(customer.link())
    page.get_by_role("button", name="Cancel and return to Acme Energy").click()
    at(page, "Nothing was connected")
    page.go_back()
    page.reload()
    at(page, "This link has already been used")

    app_id = customer.app_id
    response = page.goto(f"{service.base}/link/{app_id}?token=lt_made_up")
    assert response is not None
    assert response.status == 404
    at(page, "This link is not valid")


def test_cancel_and_deny_return_to_the_app_with_an_error(page: Page, customer: Customer) -> None:
    page.goto(customer.link(redirectUri=APP_URL))
    page.get_by_role("button", name="Cancel and return to Acme Energy").click()
    assert finish_query(page) == {"status": ["error"], "error": ["user_cancelled"]}
    page.goto(customer.link(redirectUri=APP_URL, vendor="sandbox-volta"))
    sign_in(page, "user@volta.test", "volta-pass")
    pick(page, "Cellar battery")
    page.get_by_role("button", name="Don't allow").click()
    at(page, "Nothing was connected")
    assert finish_query(page) == {"status": ["error"], "error": ["consent_denied"]}
    assert customer.linked_accounts() == []


# --- revocation -------------------------------------------------------------------------------
def test_revoking_through_the_api_makes_the_devices_unavailable_until_relinked(
    page: Page, customer: Customer
) -> None:
    page.goto(customer.link(vendor="sandbox-volta"))
    sign_in(page, "user@volta.test", "volta-pass")
    pick(page, "Garage battery")
    page.get_by_role("button", name="Allow", exact=True).click()
    [account] = customer.linked_accounts()
    device_id = account["deviceIds"][0]
    assert customer.device("battery", device_id)["sync"]["available"] is True

    revoked = customer.http.delete(f"/users/ada/linked-accounts/{account['id']}")
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["data"]["status"] == "revoked"
    assert customer.device("battery", device_id)["sync"]["available"] is False
    refused = customer.http.post(f"/battery/{device_id}", json={"action": {"command": "idle"}})
    assert refused.json()["error"]["code"] == "CREDENTIALS_INVALID"
    [disconnected] = customer.events("device.disconnected")
    assert disconnected["deviceId"] == device_id

    page.goto(disconnected["reconnectionUrl"])
    at(page, "Sign in to Volta Energy")
    sign_in(page, "user@volta.test", "volta-pass")
    expect(page.get_by_text("connected before: it will be reconnected")).to_be_visible()
    pick(page, "Garage battery")
    page.get_by_role("button", name="Allow", exact=True).click()
    assert customer.device("battery", device_id)["sync"]["available"] is True
    [reconnected] = customer.events("device.reconnected")
    assert reconnected["deviceId"] == device_id


def test_the_user_removes_access_from_the_flow(page: Page, customer: Customer) -> None:
    page.goto(customer.link(vendor="sandbox-ampere"))
    sign_in(page, "user@ampere.test", "ampere-pass")
    pick(page, "Carport charger")
    page.get_by_role("button", name="Allow", exact=True).click()
    page.goto(customer.link(redirectUri=APP_URL))
    expect(page.get_by_role("heading", name="Already connected")).to_be_visible()
    page.get_by_role("button", name=re.compile("Remove access to Ampere Charging")).click()
    at(page, "Remove Acme Energy's access to Ampere Charging?")
    page.get_by_role("button", name="Remove access").click()
    at(page, "Access removed")
    [account] = customer.linked_accounts()
    assert account["status"] == "revoked"
    assert finish_query(page) == {"status": ["revoked"], "linkedAccountId": [account["id"]]}


# --- keyboard and phone -----------------------------------------------------------------------
def tab_to(page: Page, selector: str, limit: int = 25) -> None:
    """Presses Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focus_is_visible(page: Page) -> bool:
    style = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, s.outlineWidth]; }"
    )
    return bool(style[0] != "none" and style[1] != "0px")


def test_a_flow_completed_with_the_keyboard_alone(page: Page, customer: Customer) -> None:
    page.goto(customer.link(redirectUri=APP_URL))
    tab_to(page, "a.skip-link")
    assert focus_is_visible(page)
    tab_to(page, "input[value=battery]")
    page.keyboard.press("Space")
    assert focus_is_visible(page)
    tab_to(page, "button[value=continue]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    at(page, "Who made your battery?")
    tab_to(page, "input[name=vendor]")
    page.keyboard.press("ArrowDown")  # moves to, and selects, the next maker: Nimbus
    page.keyboard.press("ArrowUp")  # back to Volta
    with page.expect_navigation():
        page.keyboard.press("Enter")  # submits the form from a radio button
    at(page, "Sign in to Volta Energy")
    tab_to(page, "#field-email")
    page.keyboard.type("user@volta.test")
    page.keyboard.press("Tab")
    page.keyboard.type("volta-pass")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    at(page, "Choose the devices to connect")
    tab_to(page, "#field-device")
    page.keyboard.press("Space")
    tab_to(page, "button[value=continue]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    tab_to(page, "button[value=allow]")
    assert focus_is_visible(page)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    at(page, "Your devices are connected")
    tab_to(page, "a.button-primary")
    page.keyboard.press("Enter")
    page.wait_for_url("https://app.example.com/**")
    assert parse_qs(urlsplit(page.url).query)["status"] == ["success"]


def fits(page: Page, width: int) -> None:
    """No sideways scrolling, every control inside the screen and big enough to tap."""
    page.wait_for_load_state()
    expect(page.locator("main")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    for control in page.locator("main button:visible, main input:visible, main a:visible").all():
        box = control.bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= width, control.evaluate("e => e.outerHTML")
        if control.get_attribute("type") not in ("radio", "checkbox"):
            assert box["height"] >= 40, control.evaluate("e => e.outerHTML")
    for field in page.locator("input.input").all():
        size = field.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 16, "smaller text makes phones zoom in"


def test_every_page_fits_a_375_px_wide_phone(browser: Browser, customer: Customer) -> None:
    phone = new_page(browser, width=375, height=740)
    try:
        phone.goto(customer.link(redirectUri=APP_URL))
        at(phone, "Connect your device to Acme Energy")
        fits(phone, 375)
        choose_vendor(phone, "Home battery", "Nimbus Power")
        at(phone, "Sign in to Nimbus Power")
        fits(phone, 375)
        sign_in(phone, "user@nimbus.test", "wrong")
        shows_errors(phone, re.compile("password is not correct"))
        fits(phone, 375)
        sign_in(phone, "user@nimbus.test", "nimbus-pass")
        at(phone, "Enter the code from Nimbus Power")
        fits(phone, 375)
        phone.get_by_label("Verification code").fill("123456")
        phone.get_by_role("button", name="Continue").click()
        at(phone, "Choose the devices to connect")
        fits(phone, 375)
        pick(phone, "Office battery")
        at(phone, "Allow Acme Energy to use your devices?")
        fits(phone, 375)
        phone.get_by_role("button", name="Allow", exact=True).click()
        at(phone, "Your devices are connected")
        fits(phone, 375)
    finally:
        phone.context.close()


# --- the real command -------------------------------------------------------------------------
def test_energyhub_serve_serves_the_link_ui(browser: Browser, tmp_path: Path) -> None:
    """`energyhub serve` as users run it (uvloop, httptools, the demo account): the pages
    and their stylesheet are found and a link completes."""
    service = start_service(f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}", tmp_path)
    page = new_page(browser)
    try:
        key = re.search(r"sk_test_[A-Za-z0-9]{32,}", service.log.read_text())
        assert key, service.log.read_text()
        headers = {"x-api-key": key.group(0)}
        made = httpx.post(
            f"{service.base}/link-sessions",
            json={"userId": "demo-user", "vendor": "sandbox-volta"},
            headers=headers,
        )
        assert made.status_code == 201, made.text
        page.goto(made.json()["data"]["linkUrl"])
        expect(page.locator(".masthead-app")).to_have_text("Demo")
        css = page.evaluate("() => getComputedStyle(document.querySelector('.masthead')).display")
        assert css == "flex", "the stylesheet is served"
        sign_in(page, "user@volta.test", "volta-pass")
        pick(page, "Garage battery")
        page.get_by_role("button", name="Allow", exact=True).click()
        at(page, "Your devices are connected")
        accounts = httpx.get(f"{service.base}/users/demo-user/linked-accounts", headers=headers)
        assert [a["status"] for a in accounts.json()["data"]["items"]] == ["active"]
    finally:
        page.context.close()
        service.stop()
