"""The device page's actions in a real browser (issue 18): send a command from the form built
from the commands map, cancel a scheduled action, plug the simulated car out and in, set a
battery's level, disconnect and lock a device, and read the charging plan. Each effect is
checked where it lands: through the API, with the member's account's key. Also: the chart's
newest point is the state shown beside it, and a forged command form is refused.

`test_every_page_as_a_screenshot` saves each dashboard page as a PNG in
`ENERGYHUB_DASHBOARD_SHOTS` (a directory) when set, for a person to look at."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock
from tests.web.support import NO_CHROMIUM, ThreadedService, chromium_path
from tests.web.test_dashboard import (
    START,
    Customer,
    at,
    chart_points,
    click,
    go,
    new_page,
    send_due_webhooks,
    signed_in,
)

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


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedService]:
    running = ThreadedService(
        tmp_path_factory.mktemp("dashboard-device"),
        FakeClock(START),
        sandbox_link_event_delay_s=0,
        sandbox_push_event_delay_s=0,
    ).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def customer(service: ThreadedService) -> Iterator[Customer]:
    with Customer(service) as made:
        yield made


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    opened = new_page(browser, height=1000)
    try:
        yield opened
    finally:
        opened.context.close()


def device_page(page: Page, service: ThreadedService, customer: Customer, device_id: str) -> None:
    signed_in(page, service, customer)
    assert go(page, service, f"/sandbox/devices/{device_id}") == 200


def api_device(customer: Customer, kind: str, device_id: str) -> dict[str, Any]:
    response = customer.http.get(f"/{kind}/{device_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def state_value(page: Page, key: str) -> str:
    cell = page.locator("#state tr", has=page.locator(f"th code:text-is('{key}')")).locator("td")
    return cell.inner_text().strip()


def command_form(page: Page, command: str) -> Any:
    form = page.locator(f"details#command-{command.replace('.', '-').replace('_', '-')}")
    form.locator("summary").click()
    return form


def advance(service: ThreadedService, by: timedelta) -> None:
    service.clock.advance(by)


# --- sending a command ---
def test_a_command_is_sent_from_its_form_and_shown_with_its_action(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    battery = customer.new_device("battery")
    device_page(page, service, customer, battery["id"])
    form = command_form(page, "charge")
    expect(form.get_by_label("power")).to_be_visible()
    expect(form).to_contain_text("0 to 5 kW")  # the parameter's bounds and unit

    # a number out of range: the push's own message, the form kept open with what was sent
    form.get_by_label("power").fill("9")
    with page.expect_response(re.compile(r"/commands$")) as answer:
        click(page, "Send charge")
    assert answer.value.status == 303  # to the page, which says why
    expect(page.get_by_role("alert")).to_contain_text("PARAMETER_OUT_OF_RANGE")
    expect(page.get_by_role("alert")).to_contain_text("parameter: power")
    expect(page.get_by_role("alert")).to_contain_text("max: 5")
    expect(page).to_have_title(re.compile("^Error: "))
    form = page.locator("details#command-charge")
    expect(form.get_by_label("power")).to_have_value("9")
    assert customer.http.get("/actions").json()["data"]["items"] == []

    # text where a number goes: said by the page, nothing pushed
    form.get_by_label("power").fill("lots")
    click(page, "Send charge")
    expect(page.get_by_role("alert")).to_contain_text("power must be a number of kW")
    assert customer.http.get("/actions").json()["data"]["items"] == []

    page.locator("details#command-charge").get_by_label("power").fill("3")
    click(page, "Send charge")
    expect(page.get_by_role("status")).to_contain_text("charge")
    action_id = page.locator("#outcome-action-id").inner_text()
    listed = customer.http.get(f"/actions/{action_id}").json()["data"]
    assert listed["command"] == "charge"
    assert listed["parameters"]["power"]["value"] == 3.0
    expect(page.locator("#outcome-action-state")).to_have_text(listed["state"])
    expect(page.locator("#actions tbody tr").first).to_contain_text(action_id)

    # once the state is read again it shows the command, and so does the chart's newest point
    advance(service, timedelta(minutes=2))
    go(page, service, f"/sandbox/devices/{battery['id']}")
    expect(page.locator("#state")).to_contain_text("chargeRate (kW)")
    assert state_value(page, "chargeRate") == "3.0 kW"
    assert state_value(page, "status") == "charging"
    read = api_device(customer, "battery", battery["id"])
    assert read["state"]["chargeRate"] == 3.0
    level = float(state_value(page, "level").removesuffix(" %"))
    assert read["state"]["level"] == level
    newest_x, newest_y = max(chart_points(page) + dots(page))
    assert newest_x == 708.0  # the right edge: now
    assert newest_y == pytest.approx(212 - level / 100 * 200, abs=0.11)


def dots(page: Page) -> list[tuple[float, float]]:
    return [
        (float(d.get_attribute("cx") or 0), float(d.get_attribute("cy") or 0))
        for d in page.locator("figure.chart circle.chart-dot").all()
    ]


def test_a_scheduled_command_shows_its_local_start_and_is_cancelled(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    battery = customer.new_device("battery", timezone="America/New_York")
    device_page(page, service, customer, battery["id"])
    expect(page.locator(".facts")).to_contain_text("America/New_York")
    form = command_form(page, "discharge")
    form.get_by_label("power").fill("2")
    form.get_by_label("Start").fill("2026-11-20T15:30")  # 20:30 UTC
    with page.expect_response(re.compile(r"/commands$")) as answer:
        click(page, "Send discharge")
    assert answer.value.status == 303
    expect(page.locator("#outcome-action-state")).to_have_text("scheduled")
    expect(page.get_by_role("status")).to_contain_text("2026-11-20 15:30 EST")
    action_id = page.locator("#outcome-action-id").inner_text()
    action = customer.http.get(f"/actions/{action_id}").json()["data"]
    assert action["state"] == "scheduled"
    assert action["start"].startswith("2026-11-20T20:30:00")

    row = page.locator("#actions tbody tr", has_text=action_id)
    expect(row).to_contain_text("2026-11-20 15:30 EST")
    row.get_by_role("button", name=re.compile("^Cancel discharge")).click()
    expect(page.get_by_role("status")).to_contain_text("Action cancelled")
    expect(page.locator("#outcome-action-state")).to_have_text("cancelled")
    assert customer.http.get(f"/actions/{action_id}").json()["data"]["state"] == "cancelled"
    row = page.locator("#actions tbody tr", has_text=action_id)
    expect(row.get_by_role("button")).to_have_count(0)  # nothing left to cancel


def test_reloading_after_a_send_sends_nothing_again(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    """Post/Redirect/Get: the form answers 303 to the device page, so the browser's reload
    asks for the page again (no resubmission) and no second action is made."""
    battery = customer.new_device("battery")
    device_page(page, service, customer, battery["id"])
    form = command_form(page, "charge")
    form.get_by_label("power").fill("2")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(f"{r.method} {r.url}"))
    with page.expect_response(re.compile(r"/commands$")) as answer:
        click(page, "Send charge")
    assert answer.value.status == 303
    expect(page.get_by_role("status")).to_contain_text("charge")
    action_id = page.locator("#outcome-action-id").inner_text()
    device_url = f"{service.base}/dashboard/sandbox/devices/{battery['id']}"
    assert page.url == f"{device_url}#outcome"

    reloaded = page.reload()
    assert reloaded is not None
    assert reloaded.request.method == "GET"
    assert reloaded.status == 200
    expect(page.locator("#outcome")).to_have_count(0)  # said once, on the redirected page
    expect(page.locator("#actions tbody tr").first).to_contain_text(action_id)
    actions = customer.http.get("/actions").json()["data"]["items"]
    assert [a["id"] for a in actions] == [action_id], "no second action"
    posts = [r for r in requests if r.startswith("POST ")]
    assert posts == [f"POST {device_url}/commands"], requests


def test_a_forged_command_form_is_refused(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    battery = customer.new_device("battery")
    device_page(page, service, customer, battery["id"])
    page.evaluate(
        "() => document.querySelectorAll('input[name=csrf]').forEach(i => { i.value = 'x'; })"
    )
    command_form(page, "idle")
    with page.expect_response(re.compile(r"/commands$")) as answer:
        click(page, "Send idle")
    assert answer.value.status == 403
    at(page, "This form has expired")
    assert customer.http.get("/actions").json()["data"]["items"] == []


# --- the sandbox's controls ---
def test_the_car_is_plugged_out_and_in_and_the_state_follows(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    charger = customer.new_device("ev-charger", "bob")
    device_page(page, service, customer, charger["id"])

    click(page, "Plug out")
    expect(page.get_by_role("status")).to_contain_text("unplugged")
    assert state_value(page, "isConnected") == "false"
    assert api_device(customer, "ev-charger", charger["id"])["state"]["isConnected"] is False

    click(page, "Plug in")
    expect(page.get_by_role("status")).to_contain_text("plugged in")
    assert state_value(page, "isConnected") == "true"
    assert api_device(customer, "ev-charger", charger["id"])["state"]["isConnected"] is True

    page.get_by_label("Car's state of charge").fill("120")
    click(page, "Set state of charge")
    expect(page.get_by_role("alert")).to_contain_text("between 0 and 100")
    page.get_by_label("Car's state of charge").fill("35")
    click(page, "Set state of charge")
    expect(page.locator("#vehicle-facts")).to_contain_text("35.0 %")

    click(page, "Reset to the daily pattern")
    expect(page.get_by_role("status")).to_contain_text("Back to the daily pattern")


def test_a_battery_level_is_set_and_the_device_disconnected_and_locked(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    battery = customer.new_device("battery")
    device_page(page, service, customer, battery["id"])
    expect(page.get_by_role("button", name="Plug out")).to_have_count(0)
    page.get_by_role("textbox", name="Level").fill("42")
    click(page, "Set level")
    assert state_value(page, "level") == "42.0 %"
    assert api_device(customer, "battery", battery["id"])["state"]["level"] == 42.0

    click(page, "Disconnect")
    expect(page.get_by_role("status")).to_contain_text("Disconnected")
    click(page, "Reconnect")
    expect(page.get_by_role("status")).to_contain_text("Reconnected")
    assert send_due_webhooks(service) == 0  # no endpoint: nothing to deliver

    click(page, "VPP lock for 60 minutes")
    expect(page.locator(".facts")).to_contain_text("locked")
    pushed = customer.http.post(f"/battery/{battery['id']}", json={"action": {"command": "idle"}})
    assert pushed.status_code == 423, pushed.text
    click(page, "End the VPP lock")
    pushed = customer.http.post(f"/battery/{battery['id']}", json={"action": {"command": "idle"}})
    assert pushed.status_code in (200, 202), pushed.text


# --- the plan, the schedule, the vehicle and the linked account ---
def test_a_charger_shows_its_plan_schedule_sessions_and_vehicle(
    page: Page, service: ThreadedService, customer: Customer
) -> None:
    charger = customer.new_device("ev-charger", "cy")
    site = customer.http.put(
        "/users/cy/site",
        json={
            "tariff": {
                "currency": "EUR",
                "import": {
                    "timeOfUse": [
                        {"from": "00:00", "to": "06:00", "price": 0.1},
                        {"from": "06:00", "to": "24:00", "price": 0.3},
                    ]
                },
            }
        },
    )
    assert site.status_code == 200, site.text
    schedule = customer.http.put(
        f"/ev-charger/{charger['id']}/schedule",
        json={
            "timezone": "Europe/Berlin",
            "recurrence": {"rule": "daily"},
            "slots": [{"time": "23:00", "duration": "PT1H", "command": "idle"}],
        },
    )
    assert schedule.status_code in (200, 201), schedule.text
    device_page(page, service, customer, charger["id"])
    command_form(page, "auto.charge_tariff")
    click(page, "Send auto.charge_tariff")
    expect(page.get_by_role("status")).to_contain_text("auto.charge_tariff")

    plan = customer.http.get(f"/ev-charger/{charger['id']}/plan").json()["data"]
    expect(page.locator("#plan-status")).to_have_text(plan["status"])
    expect(page.locator("#plan-explanation")).to_have_text(plan["explanation"])
    expect(page.locator("#plan-facts")).to_contain_text("auto.charge_tariff")
    expect(page.locator("#plan-slots tbody tr")).to_have_count(len(plan["slots"]))
    expect(page.locator("#schedule-slots")).to_contain_text("23:00")
    expect(page.locator("#schedule-slots")).to_contain_text("idle")
    vehicle = api_device(customer, "ev-charger", charger["id"])["vehicle"]
    expect(page.locator("#vehicle-facts")).to_contain_text(vehicle["id"])
    expect(page.locator("#linked-account")).to_be_visible()
    expect(page.locator("#sessions")).to_be_visible()


WIDER_THAN_THE_SCREEN = """() => [...document.querySelectorAll('main *')]
  .filter(e => e.getBoundingClientRect().right > 375)
  .map(e => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 30))"""


# --- every page, for a person to look at ---
def test_every_page_as_a_screenshot(
    browser: Browser, service: ThreadedService, customer: Customer, tmp_path: Path
) -> None:
    shots = Path(os.environ.get("ENERGYHUB_DASHBOARD_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    battery = customer.new_device("battery")
    charger = customer.new_device("ev-charger", "dee")
    customer.http.post(
        f"/battery/{battery['id']}",
        json={"action": {"command": "charge"}, "start": "2026-11-20T18:00:00"},
    )
    endpoint = customer.http.post(
        "/webhooks/endpoints", json={"url": "http://127.0.0.1:9/hook", "description": "mine"}
    ).json()["data"]
    tested = customer.http.post(f"/webhooks/endpoints/{endpoint['id']}/test")
    assert tested.status_code == 202, tested.text
    delivery_id = tested.json()["data"]["id"]
    accounts = customer.container.services.accounts
    service.call(
        accounts.create_key(customer.account_id, Environment.SANDBOX, name="nightly export")
    )
    service.call(accounts.usage.flush())  # the customer's own key, used above: a last use
    for width, suffix in ((1280, ""), (375, "-phone")):
        page = new_page(browser, width=width, height=900)
        try:
            page.goto(f"{service.base}/dashboard/sign-in")
            page.screenshot(path=shots / f"sign-in{suffix}.png", full_page=True)
            signed_in(page, service, customer)
            for name, path in (
                ("devices", "/sandbox/devices"),
                ("battery", f"/sandbox/devices/{battery['id']}"),
                ("charger", f"/sandbox/devices/{charger['id']}"),
                ("keys", "/sandbox/keys"),
                ("webhooks", "/sandbox/webhooks"),
                ("deliveries", "/sandbox/deliveries"),
                ("delivery", f"/sandbox/deliveries/{delivery_id}"),
                ("live-devices", "/live/devices"),
                ("not-found", "/sandbox/devices/nope"),
            ):
                go(page, service, path)
                page.screenshot(path=shots / f"{name}{suffix}.png", full_page=True)
                if width == 375:
                    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375, (
                        name,
                        page.evaluate(WIDER_THAN_THE_SCREEN),
                    )
            go(page, service, f"/sandbox/devices/{battery['id']}")
            command_form(page, "charge")
            page.locator("details#command-charge").get_by_label("power").fill("99")
            click(page, "Send charge")
            page.screenshot(path=shots / f"battery-error{suffix}.png", full_page=True)
            page.locator("details#command-charge").get_by_label("power").fill("2")
            click(page, "Send charge")
            expect(page.locator("#outcome")).to_be_visible()
            page.screenshot(path=shots / f"battery-sent{suffix}.png", full_page=True)
            go(page, service, "/sandbox/keys")
            page.get_by_label("Name (optional)").fill("billing cron")
            click(page, "Create a sandbox key")
            expect(page.locator("#new-key")).to_be_visible()
            page.screenshot(path=shots / f"keys-new{suffix}.png", full_page=True)
            page.evaluate(
                "() => document.getElementById('field-name').removeAttribute('maxlength')"
            )
            page.get_by_label("Name (optional)").fill("n" * 61)  # past what the field takes
            click(page, "Create a sandbox key")
            expect(page.get_by_role("alert")).to_contain_text("at most 60 characters")
            page.screenshot(path=shots / f"keys-error{suffix}.png", full_page=True)
            if width == 375:
                assert page.evaluate("() => document.documentElement.scrollWidth") <= 375, (
                    page.evaluate(WIDER_THAN_THE_SCREEN)
                )
            assert page.evaluate(
                "() => [...document.querySelectorAll('.status')]"
                ".every(b => b.getClientRects().length <= 1)"
            ), "a badge wrapped onto two lines"
        finally:
            page.context.close()
