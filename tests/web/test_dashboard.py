"""The customers' dashboard in a real browser (issue 6): Playwright drives Debian's Chromium
against the service served by uvicorn with a fake clock. Each test does what a member
would on one page and checks the effect where it lands: API keys against the API, webhook
endpoints through the API and the service, deliveries at a real HTTP receiver, pushes on
the device page. Also: sign-in and sign-out, CSRF from another origin, the keyboard alone
and a 375 px wide phone.

The service's background workers do not run here (`build_app` without `serving`): the
tests send due webhooks by running the webhook pump's `run_due` on the container's
`WebhookSender`, on the service's loop, and move the fake clock past retry delays."""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.clock import FakeClock
from energyhub.workers.webhook_pump import run_due
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

START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PASSWORD = "correct horse battery staple"
WRONG_PASSWORD = "not the right password"
SIGNED_OUT = "You are signed out."


# --- the service, the browser and a local web site ---------------------------------------------
@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedService]:
    running = ThreadedService(
        tmp_path_factory.mktemp("dashboard"),
        FakeClock(START),
        sandbox_link_event_delay_s=0,  # `device.connected` is due at once
        sandbox_push_event_delay_s=0,
        webhook_retry_schedule_s=(1, 2, 4),
    ).start()
    try:
        yield running
    finally:
        running.stop()


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: str
    status: int  # what the site answered


@dataclass
class LocalSite:
    """A tiny web site on 127.0.0.1 in a thread, on a port of its own: GET answers `page`
    (an attacker's page), POST the next of `answers` (a customer's webhook receiver; 200
    once they run out), and every POST is recorded."""

    page: str = "<!doctype html><title>Elsewhere</title>"
    answers: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = site.page.encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length).decode()
                status = site.answers.pop(0) if site.answers else 200
                headers = {k.lower(): v for k, v in self.headers.items()}
                site.received.append(Received(self.path, headers, body, status))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    running = LocalSite()
    try:
        yield running
    finally:
        running.close()


# --- customers and their members ---------------------------------------------------------------
class Customer(ApiCustomer):
    """A customer account with one dashboard member."""

    def __init__(self, service: ThreadedService, name: str = "Acme Energy") -> None:
        super().__init__(service, name)
        self.email = f"ops-{uuid.uuid4().hex[:8]}@acme.test"
        service.new_member(self.account_id, self.email, PASSWORD)

    @property
    def container(self) -> Any:
        assert self.service.container is not None
        return self.service.container

    def principal(self, environment: Environment = Environment.SANDBOX) -> Principal:
        return Principal(self.account_id, environment, "test")

    def key_count(self) -> int:
        return len(self.service.call(self.container.services.accounts.list_keys(self.account_id)))

    def endpoints(self) -> list[dict[str, Any]]:
        response = self.http.get("/webhooks/endpoints")
        assert response.status_code == 200, response.text
        items: list[dict[str, Any]] = response.json()["data"]["items"]
        return items

    def new_device(self, kind: str, user_id: str = "ada", **body: Any) -> dict[str, Any]:
        response = self.http.post(
            "/sandbox/devices", json={"type": kind, "userId": user_id, **body}
        )
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()["data"]
        return data


@pytest.fixture
def customer(service: ThreadedService) -> Iterator[Customer]:
    with Customer(service) as made:
        yield made


def new_page(browser: Browser, width: int = 1024, height: int = 800) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    return context.new_page()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    opened = new_page(browser)
    try:
        yield opened
    finally:
        opened.context.close()


# --- helpers that act as a member would -------------------------------------------------------
def at(page: Page, heading: str | re.Pattern[str]) -> None:
    """The page shown is the one with this main heading (waits for it to load)."""
    expect(page.locator("h1")).to_have_text(heading)


def click(page: Page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()


def sign_in(page: Page, email: str, password: str = PASSWORD) -> None:
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password").fill(password)
    click(page, "Sign in")


def signed_in(page: Page, service: ThreadedService, customer: Customer) -> Page:
    page.goto(f"{service.base}/dashboard/sign-in")
    sign_in(page, customer.email)
    at(page, "Devices")
    return page


def go(page: Page, service: ThreadedService, path: str) -> int:
    """Opens a dashboard page; its HTTP status."""
    response = page.goto(f"{service.base}/dashboard{path}")
    assert response is not None
    return response.status


def session_cookie(page: Page) -> dict[str, Any]:
    [cookie] = [c for c in page.context.cookies() if c.get("name") == "energyhub_session"]
    return dict(cookie)


def send_due_webhooks(service: ThreadedService) -> int:
    """What the webhook worker would do now: sends every due delivery; how many it tried."""
    assert service.container is not None
    attempted: int = service.call(run_due(service.container.webhook_sender, "dashboard-tests"))
    return attempted


# --- signing in and out ------------------------------------------------------------------------
def test_sign_in_shows_a_wrong_password_and_then_honours_next(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    assert go(page, service, "/sandbox/keys") == 200  # after the redirect to the sign-in page
    at(page, "Sign in")
    assert page.url.endswith("/dashboard/sign-in?next=/dashboard/sandbox/keys")

    sign_in(page, customer.email, WRONG_PASSWORD)
    at(page, "Sign in")
    expect(page.get_by_role("alert")).to_contain_text(
        "The e-mail address or the password is wrong."
    )
    expect(page).to_have_title(re.compile("^Error: Sign in"))
    expect(page.get_by_label("E-mail address")).to_have_value(customer.email)
    expect(page.get_by_label("Password")).to_have_value("")
    expect(page.get_by_label("Password")).to_have_attribute("aria-invalid", "true")
    assert not [c for c in page.context.cookies() if c.get("name") == "energyhub_session"]

    sign_in(page, customer.email)
    at(page, "API keys")  # where `next` said
    assert page.url == f"{service.base}/dashboard/sandbox/keys"
    expect(page.locator(".member")).to_have_text(customer.email)


def test_sign_in_without_next_lands_on_devices_and_never_leaves_the_dashboard(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    go(page, service, "/sign-in?next=//evil.example/steal")
    sign_in(page, customer.email)
    at(page, "Devices")
    assert page.url == f"{service.base}/dashboard/sandbox/devices"
    expect(page.locator(".sections [aria-current=page]")).to_have_text("Devices")
    # signed in, the sign-in page sends the member on
    go(page, service, "/sign-in?next=/dashboard/sandbox/webhooks")
    at(page, "Webhook endpoints")


def test_sign_out_ends_the_session_for_good(
    page: Page, browser: Browser, service: ThreadedService, customer: Customer
) -> None:
    signed_in(page, service, customer)
    cookie = session_cookie(page)
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Lax"
    stolen = {"energyhub_session": cookie["value"]}
    assert httpx.get(f"{service.base}/dashboard/sandbox/keys", cookies=stolen).status_code == 200

    click(page, "Sign out")
    at(page, "Sign in")
    assert page.url.startswith(f"{service.base}/dashboard/sign-in")
    expect(page.get_by_role("status")).to_have_text(SIGNED_OUT)
    go(page, service, "/sandbox/devices")
    at(page, "Sign in")

    # the old cookie, kept by someone, opens nothing
    thief = new_page(browser)
    try:
        thief.context.add_cookies(
            [{"name": "energyhub_session", "value": cookie["value"], "url": service.base}]
        )
        go(thief, service, "/sandbox/keys")
        at(thief, "Sign in")
    finally:
        thief.context.close()
    answer = httpx.get(f"{service.base}/dashboard/sandbox/keys", cookies=stolen)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("/dashboard/sign-in")


# --- API keys ----------------------------------------------------------------------------------
def test_a_key_is_created_shown_once_works_and_is_revoked(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    signed_in(page, service, customer)
    page.get_by_role("link", name="API keys").click()
    at(page, "API keys")
    before = customer.key_count()

    page.get_by_label("Name (optional)").fill("billing cron")
    with page.expect_response(f"{service.base}/dashboard/sandbox/keys") as answer:
        click(page, "Create a sandbox key")
    assert answer.value.status == 303
    at(page, "API keys")
    expect(page.locator("#new-key-title")).to_have_text("Your new key: billing cron")
    key = page.locator("#new-key").inner_text()
    assert key.startswith("sk_test_")
    assert customer.key_count() == before + 1

    reloaded = page.reload()  # the page again: the key is not shown, and not made again
    assert reloaded is not None
    assert reloaded.request.method == "GET"
    at(page, "API keys")
    expect(page.locator("#new-key")).to_have_count(0)
    assert key not in page.content()
    assert customer.key_count() == before + 1
    row = page.locator("tr", has_text=f"…{key[-4:]}")
    expect(row).to_contain_text("billing cron")
    expect(row).to_contain_text("Active")
    expect(row).to_contain_text("never used")

    assert httpx.get(f"{service.base}/battery", headers={"x-api-key": key}).status_code == 200
    assert service.container is not None
    service.call(service.container.services.accounts.usage.flush())
    go(page, service, "/sandbox/keys")
    used = f"last used {service.clock.now():%Y-%m-%d %H:%M} UTC"
    expect(page.locator("tr", has_text=f"…{key[-4:]}")).to_contain_text(used)

    row.get_by_role("button", name=f"Revoke the key ending in {key[-4:]}").click()
    at(page, "API keys")
    expect(page.get_by_role("status")).to_contain_text("The key was revoked")
    expect(page.locator("tr", has_text=f"…{key[-4:]}")).to_contain_text("Revoked")
    refused = httpx.get(f"{service.base}/battery", headers={"x-api-key": key})
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "EXPIRED_TOKEN"
    # the customer's other key still works
    assert customer.http.get("/battery").status_code == 200


def test_the_live_environment_makes_live_keys(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    signed_in(page, service, customer)
    page.get_by_role("navigation", name="Environment").get_by_role("link", name="Live").click()
    at(page, "Devices")
    assert page.url == f"{service.base}/dashboard/live/devices"
    page.get_by_role("link", name="API keys").click()
    expect(page.get_by_text("No live keys yet.")).to_be_visible()  # the sandbox key is not here
    click(page, "Create a live key")
    key = page.locator("#new-key").inner_text()
    assert key.startswith("sk_live_")
    answer = httpx.get(f"{service.base}/battery", headers={"x-api-key": key})
    assert answer.status_code == 200
    assert answer.json()["meta"]["environment"] == "live"


# --- webhook endpoints -------------------------------------------------------------------------
def test_an_endpoint_is_added_revealed_rotated_and_removed(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    url = "https://hooks.acme.test/energy"
    signed_in(page, service, customer)
    page.get_by_role("link", name="Webhook endpoints").click()
    at(page, "Webhook endpoints")
    expect(page.get_by_text("No sandbox endpoints yet.")).to_be_visible()

    page.get_by_label("URL").fill("not a web address")
    click(page, "Add endpoint")
    at(page, "Webhook endpoints")
    error = page.locator("#url-error")
    expect(error).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text(
        error.inner_text().replace("Error:", "").strip()
    )
    expect(page.get_by_label("URL")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("URL")).to_have_attribute("aria-describedby", "url-hint url-error")
    expect(page.get_by_label("URL")).to_have_value("not a web address")
    assert customer.endpoints() == []

    page.get_by_label("URL").fill(url)
    page.get_by_label("Description (optional)").fill("Production receiver")
    page.get_by_label("device.connected").check()
    page.get_by_label("push.completed").check()
    click(page, "Add endpoint")
    expect(page.locator("#secret-title")).to_have_text("Endpoint added")
    secret = page.locator("#signing-secret").inner_text()
    assert secret.startswith("whsec_")
    row = page.locator("tbody tr", has_text=url)
    expect(row).to_contain_text("device.connected")
    expect(row).to_contain_text("push.completed")
    expect(row).to_contain_text("Production receiver")
    [listed] = customer.endpoints()
    assert (listed["url"], listed["description"]) == (url, "Production receiver")
    assert sorted(listed["events"]) == ["device.connected", "push.completed"]
    assert "secret" not in listed  # the API lists endpoints without their secrets
    endpoint_id = listed["id"]
    expect(row).to_contain_text(endpoint_id)

    go(page, service, "/sandbox/webhooks")  # secrets are shown only when asked for
    expect(page.locator("#signing-secret")).to_have_count(0)
    page.get_by_role("button", name=f"Reveal secret of {url}").click()
    expect(page.locator("#secret-title")).to_have_text("Signing secret")
    expect(page.locator("#signing-secret")).to_have_text(secret)

    page.get_by_role("button", name=f"Rotate secret of {url}").click()
    expect(page.locator("#secret-title")).to_have_text("New signing secret")
    rotated = page.locator("#signing-secret").inner_text()
    assert rotated.startswith("whsec_")
    assert rotated != secret
    webhooks = customer.container.services.webhooks
    stored = service.call(webhooks.get_endpoint(customer.principal(), endpoint_id))
    assert stored.secret == rotated
    page.get_by_role("button", name=f"Reveal secret of {url}").click()
    expect(page.locator("#signing-secret")).to_have_text(rotated)

    page.get_by_role("button", name=f"Remove of {url}").click()
    at(page, "Webhook endpoints")
    expect(page.get_by_role("status")).to_contain_text("The endpoint was removed")
    expect(page.locator("tbody tr", has_text=url)).to_have_count(0)
    assert customer.endpoints() == []
    assert customer.http.get(f"/webhooks/endpoints/{endpoint_id}").status_code == 404


# --- deliveries --------------------------------------------------------------------------------
def test_a_real_delivery_is_listed_filtered_detailed_and_resent(
    page: Page, service: ThreadedService, customer: Customer, site: LocalSite
) -> None:
    site.answers[:] = [500, 200, 200]
    site.received.clear()
    signed_in(page, service, customer)
    go(page, service, "/sandbox/webhooks")
    page.get_by_label("URL").fill(site.url("/hooks/energy"))
    page.get_by_label("device.connected").check()
    click(page, "Add endpoint")
    secret = page.locator("#signing-secret").inner_text()
    device = customer.new_device("battery")  # `device.connected`, due at once

    assert send_due_webhooks(service) == 1
    [first] = site.received
    assert first.path == "/hooks/energy"
    assert first.headers["x-event-type"] == "device.connected"
    signed = Webhook(secret).sign(
        first.headers["webhook-id"],
        datetime.fromtimestamp(int(first.headers["webhook-timestamp"]), UTC),
        first.body,
    )
    assert signed in first.headers["webhook-signature"].split(" "), "signed with that secret"
    delivery_id = first.headers["webhook-id"]

    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Deliveries").click()
    at(page, "Webhook deliveries")
    expect(page.get_by_text("1 delivery, newest first.")).to_be_visible()
    row = page.locator("tbody tr", has_text=delivery_id)
    expect(row.locator(".status")).to_have_text("pending")
    expect(row.locator("td").nth(2)).to_have_text("1")

    service.clock.advance(1.2)  # past the first retry (1 s +- 10 %)
    assert send_due_webhooks(service) == 1
    assert [r.status for r in site.received] == [500, 200]
    page.reload()
    expect(row.locator(".status")).to_have_text("succeeded")
    expect(row.locator("td").nth(2)).to_have_text("2")

    page.get_by_label("Status").select_option("failed")
    click(page, "Filter")
    expect(page.get_by_text("0 deliveries, newest first.")).to_be_visible()
    assert "status=failed" in page.url
    expect(page.locator("tbody tr")).to_have_count(0)
    page.get_by_label("Status").select_option("succeeded")
    click(page, "Filter")
    expect(page.get_by_text("1 delivery, newest first.")).to_be_visible()
    expect(page.get_by_label("Status")).to_have_value("succeeded")
    expect(page.locator("tbody tr", has_text=delivery_id)).to_have_count(1)

    page.get_by_role("link", name="device.connected").click()
    at(page, "device.connected delivery")
    assert page.url.endswith(f"/dashboard/sandbox/deliveries/{delivery_id}")
    attempts = page.locator("#attempts tbody tr")
    expect(attempts).to_have_count(2)
    expect(attempts.nth(0).locator("td").nth(2)).to_have_text("500")
    expect(attempts.nth(1).locator("td").nth(2)).to_have_text("200")
    expect(page.locator("pre.code")).to_contain_text(device["id"])

    click(page, "Resend")
    at(page, "device.connected delivery")
    expect(page.get_by_role("status")).to_contain_text("One more attempt was queued")
    assert send_due_webhooks(service) == 1
    assert [r.headers["webhook-id"] for r in site.received] == [delivery_id] * 3
    page.reload()
    expect(attempts).to_have_count(3)
    expect(attempts.nth(2).locator("td").nth(2)).to_have_text("200")


# --- devices -----------------------------------------------------------------------------------
def test_devices_are_listed_charted_and_show_their_recent_actions(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    battery = customer.new_device("battery")
    charger = customer.new_device("ev-charger", "bob")
    signed_in(page, service, customer)
    expect(page.get_by_text("2 devices in the sandbox environment")).to_be_visible()
    battery_row = page.locator("tbody tr", has_text=battery["id"])
    expect(battery_row).to_contain_text("ada")
    expect(battery_row).to_contain_text(str(battery["state"]["status"]))
    expect(battery_row).to_contain_text(f"{battery['state']['level']} %")
    charger_row = page.locator("tbody tr", has_text=charger["id"])
    expect(charger_row).to_contain_text("bob")
    expect(charger_row).to_contain_text(" kW")

    charger_row.get_by_role("link").click()
    expect(page.locator("#chart-title")).to_have_text("Power, last 24 hours (Europe/Berlin)")
    assert len(chart_points(page)) > 24

    go(page, service, "/sandbox/devices")
    battery_row.get_by_role("link").click()
    expect(page.locator("#chart-title")).to_have_text("Level, last 24 hours (Europe/Berlin)")
    points = chart_points(page)
    assert len(points) > 24
    assert all(0 <= x <= 720 and 0 <= y <= 240 for x, y in points)
    outside = page.evaluate(
        "() => [...document.querySelectorAll('figure.chart svg text')]"
        ".map(t => [t.textContent, t.getBBox()])"
        ".filter(([, b]) => b.x < 0 || b.x + b.width > 720).map(([label]) => label)"
    )
    assert outside == [], "axis labels cut off at the chart's edges"
    expect(page.locator("#state")).to_contain_text("level")
    expect(page.get_by_text("No actions yet")).to_be_visible()

    pushed = customer.http.post(f"/battery/{battery['id']}", json={"action": {"command": "charge"}})
    assert pushed.status_code in (200, 201, 202), pushed.text
    action_id = pushed.json()["data"]["id"]
    page.reload()
    recent = page.locator("#actions tbody tr")
    expect(recent).to_have_count(1)
    expect(recent).to_contain_text("charge")
    expect(recent).to_contain_text(action_id)


def test_another_accounts_device_is_not_found(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    with Customer(service, "Other Energy") as other:
        theirs = other.new_device("battery")
    signed_in(page, service, customer)
    assert go(page, service, f"/sandbox/devices/{theirs['id']}") == 404
    at(page, "Not found")
    expect(page.locator("svg")).to_have_count(0)
    # nor is a sandbox device found in the live environment
    mine = customer.new_device("battery")
    assert go(page, service, f"/live/devices/{mine['id']}") == 404
    assert go(page, service, f"/sandbox/devices/{mine['id']}") == 200


def chart_points(page: Page) -> list[tuple[float, float]]:
    lines = page.locator("figure.chart svg polyline.chart-line")
    expect(lines.first).to_be_visible()
    points: list[tuple[float, float]] = []
    for line in lines.all():
        for pair in (line.get_attribute("points") or "").split():
            x, y = pair.split(",")
            points.append((float(x), float(y)))
    return points


# --- CSRF, the keyboard and a phone -------------------------------------------------------------
def test_a_form_posted_from_another_origin_is_refused(
    page: Page, service: ThreadedService, customer: Customer, site: LocalSite
) -> None:
    signed_in(page, service, customer)
    go(page, service, "/sandbox/keys")
    token = page.locator("form input[name=csrf]").first.get_attribute("value")
    assert token
    before = customer.key_count()

    # another web site (another port: same site, other origin) that even knows the token
    site.page = (
        "<!doctype html><title>Win a prize</title>"
        f'<form method="post" action="{service.base}/dashboard/sandbox/keys">'
        f'<input type="hidden" name="csrf" value="{token}"></form>'
    )
    page.goto(site.url("/prize"))
    with page.expect_response(f"{service.base}/dashboard/sandbox/keys") as answer:
        page.evaluate("() => document.forms[0].submit()")
    assert answer.value.status == 403
    at(page, "Request refused")
    assert customer.key_count() == before

    # from the dashboard's own page but without the session's token
    go(page, service, "/sandbox/keys")
    page.evaluate(
        "() => document.querySelectorAll('input[name=csrf]').forEach(i => { i.value = 'x'; })"
    )
    with page.expect_response(f"{service.base}/dashboard/sandbox/keys") as answer:
        click(page, "Create a sandbox key")
    assert answer.value.status == 403
    at(page, "This form has expired")
    assert customer.key_count() == before

    # and the real form still works
    go(page, service, "/sandbox/keys")
    click(page, "Create a sandbox key")
    expect(page.locator("#new-key")).to_be_visible()
    assert customer.key_count() == before + 1


def tab_to(page: Page, selector: str, limit: int = 25) -> None:
    """Presses Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_signing_in_with_the_keyboard_alone(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    go(page, service, "/sign-in")
    tab_to(page, "a.skip-link")
    tab_to(page, "#field-email")
    page.keyboard.type(customer.email)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "field-password"
    page.keyboard.type(PASSWORD)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    at(page, "Devices")
    tab_to(page, "button.masthead-link")  # and out again
    with page.expect_navigation():
        page.keyboard.press("Enter")
    at(page, "Sign in")
    expect(page.get_by_role("status")).to_have_text(SIGNED_OUT)


def test_the_keys_page_fits_a_375_px_wide_phone(
    browser: Browser, service: ThreadedService, customer: Customer
) -> None:
    phone = new_page(browser, width=375, height=740)
    try:
        signed_in(phone, service, customer)
        go(phone, service, "/sandbox/keys")
        click(phone, "Create a sandbox key")
        expect(phone.locator("#new-key")).to_be_visible()
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 375
        for control in phone.locator("main button:visible, main a:visible").all():
            box = control.bounding_box()
            assert box is not None
            assert box["x"] >= 0, control.inner_text()
            assert box["x"] + box["width"] <= 375, control.inner_text()
        go(phone, service, "/sandbox/keys")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 375
    finally:
        phone.context.close()
