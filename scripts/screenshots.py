#!/usr/bin/env python3
"""Screenshots of every page of the Link UI and the dashboard, for a reviewer to look at.

    .venv/bin/python scripts/screenshots.py screenshots/

Starts `energyhub serve` on a fresh database in a temporary folder, makes an account
("Acme Energy") with a sandbox and a live key and a dashboard member through the CLI, walks
the hosted flow in Debian's Chromium (Playwright; `apt-get install chromium`) through each
sandbox vendor, the error branches, removing access and the live vendors, then every
dashboard page (sign-in, devices, a battery's and a charger's page, API keys, webhook
endpoints, deliveries; real deliveries go to a small receiver on 127.0.0.1 that fails its
first request), and writes one PNG per page (a few also at 375 px wide) into the folder
given. Expired links are not shown: that needs 24 h (tests/web/test_link_flow.py covers it
with a fake clock)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
APP_URL = "https://app.example.com/linked"
MEMBER_EMAIL = "ops@acme.example"
MEMBER_PASSWORD = "correct horse battery staple"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_service(workdir: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The service on a free port, and the environment its CLI commands need."""
    port = free_port()
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'energyhub.db'}",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
        # the dashboard's deliveries: events go out at once and a failure is retried in 1 s
        "ENERGYHUB_SANDBOX_LINK_EVENT_DELAY_S": "0",
        "ENERGYHUB_SANDBOX_PUSH_EVENT_DELAY_S": "0",
        "ENERGYHUB_WEBHOOK_RETRY_SCHEDULE_S": "1,1,1",
    }
    log = (workdir / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "energyhub", "serve", "--port", str(port), "--no-demo"],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise SystemExit("the service exited:\n" + (workdir / "serve.log").read_text())
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the service did not start in 60 s")
            time.sleep(0.2)
        yield base, env
    finally:
        process.terminate()
        process.wait(30)
        log.close()


def cli(env: dict[str, str], workdir: Path, *args: str, stdin: str | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "energyhub", *args, "--json"],
        cwd=workdir,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


class Shooter:
    def __init__(self, browser: Browser, base: str, keys: dict[str, str], out: Path) -> None:
        self.browser = browser
        self.base = base
        self.keys = keys
        self.out = out
        self.count = 0

    def page(self, width: int = 1024) -> Page:
        context = self.browser.new_context(viewport={"width": width, "height": 800})
        context.route(
            "https://app.example.com/**",
            lambda route: route.fulfill(status=200, content_type="text/html", body="<p>App"),
        )
        return context.new_page()

    def link(self, environment: str = "test", **body: Any) -> str:
        response = httpx.post(
            f"{self.base}/link-sessions",
            json={"userId": "ada", "redirectUri": APP_URL, **body},
            headers={"x-api-key": self.keys[environment]},
        )
        response.raise_for_status()
        url: str = response.json()["data"]["linkUrl"]
        return url

    def shot(self, page: Page, name: str) -> None:
        page.wait_for_load_state()
        self.count += 1
        path = self.out / f"{self.count:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        print(path)


def click(page: Page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()


def sign_in(page: Page, email: str, password: str) -> None:
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password").fill(password)
    click(page, "Sign in")


def walk(shoot: Shooter) -> None:
    page = shoot.page()
    page.goto(shoot.link())
    shoot.shot(page, "device-type")
    click(page, "Continue")
    shoot.shot(page, "device-type-error")
    page.get_by_label("Home battery").check()
    click(page, "Continue")
    shoot.shot(page, "vendor")
    page.get_by_label("Volta Energy").check()
    click(page, "Continue")
    shoot.shot(page, "credentials")
    sign_in(page, "user@volta.test", "wrong-password")
    shoot.shot(page, "credentials-wrong-password")
    sign_in(page, "user@volta.test", "volta-pass")
    shoot.shot(page, "devices")
    click(page, "Continue")
    shoot.shot(page, "devices-nothing-picked")
    page.get_by_label("Garage battery").check()
    page.get_by_label("Barn battery").check()
    click(page, "Continue")
    shoot.shot(page, "consent")
    click(page, "Allow")
    shoot.shot(page, "done")
    page.reload()
    shoot.shot(page, "link-already-used")

    page.goto(shoot.link(vendor="sandbox-nimbus"))
    sign_in(page, "user@nimbus.test", "nimbus-pass")
    shoot.shot(page, "mfa")
    page.get_by_label("Verification code").fill("000000")
    click(page, "Continue")
    shoot.shot(page, "mfa-wrong-code")
    click(page, "Send a new code")
    shoot.shot(page, "mfa-new-code-sent")

    page.goto(shoot.link(vendor="sandbox-ampere"))
    sign_in(page, "outage@ampere.test", "ampere-pass")
    shoot.shot(page, "credentials-vendor-outage")
    sign_in(page, "empty@ampere.test", "ampere-pass")
    shoot.shot(page, "devices-empty-account")

    page.goto(shoot.link())
    shoot.shot(page, "device-type-with-connected-account")
    page.get_by_role("button", name="Remove access to Volta Energy (user@volta.test)").click()
    shoot.shot(page, "remove-access")
    click(page, "Remove access")
    shoot.shot(page, "access-removed")

    page.goto(shoot.link())
    page.get_by_role("button", name="Cancel and return to Acme Energy").click()
    shoot.shot(page, "cancelled")
    page.goto(shoot.link(vendor="sandbox-volta"))
    sign_in(page, "user@volta.test", "volta-pass")
    page.get_by_label("Cellar battery").check()
    click(page, "Continue")
    click(page, "Don't allow")
    shoot.shot(page, "consent-denied")
    page.goto(f"{shoot.base}/link/app_unknown?token=lt_unknown")
    shoot.shot(page, "link-not-valid")

    page.goto(shoot.link("live"))
    page.get_by_label("EV charger").check()
    click(page, "Continue")
    shoot.shot(page, "live-vendor")
    page.get_by_label("OCPP charger").check()
    click(page, "Continue")
    page.get_by_label("Charge point ID").fill("CP 1")
    page.get_by_label("Charger password").fill("short")
    click(page, "Sign in")
    shoot.shot(page, "live-ocpp-errors")
    page.goto(shoot.link("live", vendor="sunspec"))
    shoot.shot(page, "live-sunspec")
    page.context.close()

    phone = shoot.page(width=375)
    phone.goto(shoot.link(vendor="sandbox-nimbus"))
    shoot.shot(phone, "phone-credentials")
    sign_in(phone, "user@nimbus.test", "nope")
    shoot.shot(phone, "phone-credentials-error")
    sign_in(phone, "user@nimbus.test", "nimbus-pass")
    phone.get_by_label("Verification code").fill("123456")
    click(phone, "Continue")
    shoot.shot(phone, "phone-devices")
    phone.get_by_label("Home battery").check()
    click(phone, "Continue")
    shoot.shot(phone, "phone-consent")
    phone.context.close()


class Receiver:
    """A customer's webhook receiver on 127.0.0.1, in a thread: it answers its first
    request with a 500 (so a delivery shows a failed attempt and its retry), then 204."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                status = 500 if not receiver.statuses else 204
                receiver.statuses.append(status)
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hooks/energy"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def wait_for(self, successes: int, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while self.statuses.count(204) < successes:
            if time.monotonic() > deadline:
                raise SystemExit(f"the receiver got {self.statuses} in {seconds} s")
            time.sleep(0.1)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def api(shoot: Shooter, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.request(
        method, f"{shoot.base}{path}", json=body, headers={"x-api-key": shoot.keys["test"]}
    )
    response.raise_for_status()
    data: dict[str, Any] = response.json()["data"]
    return data


def dashboard(shoot: Shooter, receiver: Receiver) -> None:
    """Every dashboard page, as a member of Acme Energy sees it."""
    page = shoot.page()
    page.goto(f"{shoot.base}/dashboard/")
    shoot.shot(page, "dashboard-sign-in")
    sign_in(page, MEMBER_EMAIL, "not the right password")
    shoot.shot(page, "dashboard-sign-in-wrong-password")
    sign_in(page, MEMBER_EMAIL, MEMBER_PASSWORD)
    page.get_by_role("heading", name="Devices", exact=True).wait_for()
    shoot.shot(page, "dashboard-devices-none")

    page.goto(f"{shoot.base}/dashboard/sandbox/keys")
    click(page, "Create a sandbox key")
    page.locator("#new-key").wait_for()
    shoot.shot(page, "dashboard-keys-new-key")

    page.goto(f"{shoot.base}/dashboard/sandbox/webhooks")
    page.get_by_label("URL").fill("ftp://hooks.acme.example")
    click(page, "Add endpoint")
    shoot.shot(page, "dashboard-webhooks-invalid-url")
    page.get_by_label("URL").fill(receiver.url)
    page.get_by_label("Description (optional)").fill("Acme's receiver")
    click(page, "Add endpoint")
    page.locator("#signing-secret").wait_for()
    shoot.shot(page, "dashboard-webhooks-added")
    page.goto(f"{shoot.base}/dashboard/sandbox/webhooks")
    page.get_by_role("button", name=f"Reveal secret of {receiver.url}").click()
    page.locator("#signing-secret").wait_for()
    shoot.shot(page, "dashboard-webhooks-secret-revealed")

    # events: two devices connected (`device.connected`, the first answered 500 and then
    # retried) and a completed push (`push.completed`, after the sandbox's 2 s)
    battery = api(shoot, "POST", "/sandbox/devices", {"type": "battery", "userId": "ada"})
    charger = api(shoot, "POST", "/sandbox/devices", {"type": "ev-charger", "userId": "bob"})
    api(shoot, "POST", f"/battery/{battery['id']}", {"action": {"command": "charge"}})
    api(
        shoot,
        "POST",
        f"/ev-charger/{charger['id']}",
        {"action": {"command": "charge"}},
    )
    receiver.wait_for(successes=4)

    page.goto(f"{shoot.base}/dashboard/sandbox/devices")
    shoot.shot(page, "dashboard-devices")
    page.goto(f"{shoot.base}/dashboard/sandbox/devices/{battery['id']}")
    page.locator("polyline.chart-line").first.wait_for()
    shoot.shot(page, "dashboard-device-battery")
    page.goto(f"{shoot.base}/dashboard/sandbox/devices/{charger['id']}")
    page.locator("polyline.chart-line").first.wait_for()
    shoot.shot(page, "dashboard-device-charger")

    page.goto(f"{shoot.base}/dashboard/sandbox/deliveries")
    shoot.shot(page, "dashboard-deliveries")
    retried = page.locator("tbody tr").filter(
        has=page.locator("td:nth-child(3)", has_text=re.compile(r"^2$"))
    )
    retried.first.get_by_role("link").click()
    page.locator("#attempts").wait_for()
    shoot.shot(page, "dashboard-delivery")
    click(page, "Resend")
    page.get_by_role("status").wait_for()
    shoot.shot(page, "dashboard-delivery-resent")
    page.goto(f"{shoot.base}/dashboard/sandbox/deliveries?status=failed")
    shoot.shot(page, "dashboard-deliveries-filtered")

    page.goto(f"{shoot.base}/dashboard/live/keys")
    shoot.shot(page, "dashboard-live-keys")
    page.goto(f"{shoot.base}/dashboard/sandbox/devices/dev_unknown")
    shoot.shot(page, "dashboard-not-found")
    click(page, "Sign out")
    shoot.shot(page, "dashboard-signed-out")
    page.context.close()

    phone = shoot.page(width=375)
    phone.goto(f"{shoot.base}/dashboard/sign-in")
    sign_in(phone, MEMBER_EMAIL, MEMBER_PASSWORD)
    phone.get_by_role("heading", name="Devices", exact=True).wait_for()
    shoot.shot(phone, "phone-dashboard-devices")
    phone.goto(f"{shoot.base}/dashboard/sandbox/keys")
    click(phone, "Create a sandbox key")
    phone.locator("#new-key").wait_for()
    shoot.shot(phone, "phone-dashboard-keys")
    phone.goto(f"{shoot.base}/dashboard/sandbox/devices/{battery['id']}")
    shoot.shot(phone, "phone-dashboard-device-battery")
    phone.context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where the PNG files go (made if missing)")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Chromium is not installed: apt-get install -y chromium")
    out: Path = args.folder
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="energyhub-shots-") as temporary:
        workdir = Path(temporary)
        with running_service(workdir) as (base, env):
            account = cli(env, workdir, "accounts", "create", "--name", "Acme Energy")
            keys = {
                environment: cli(
                    env,
                    workdir,
                    "keys",
                    "create",
                    "--account",
                    account["accountId"],
                    "--env",
                    environment,
                )["key"]
                for environment in ("test", "live")
            }
            cli(
                env,
                workdir,
                "accounts",
                "add-member",
                "--account",
                account["accountId"],
                "--email",
                MEMBER_EMAIL,
                "--password-stdin",
                stdin=MEMBER_PASSWORD + "\n",
            )
            receiver = Receiver()
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                try:
                    shoot = Shooter(browser, base, keys, out)
                    walk(shoot)
                    dashboard(shoot, receiver)
                finally:
                    browser.close()
                    receiver.close()
    print(f"{shoot.count} screenshots in {out}")


if __name__ == "__main__":
    main()
