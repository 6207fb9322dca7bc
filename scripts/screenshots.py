#!/usr/bin/env python3
"""Screenshots of every page of the Link UI, for a reviewer to look at.

    .venv/bin/python scripts/screenshots.py screenshots/

Starts `energyhub serve` on a fresh database in a temporary folder, makes an account
("Acme Energy") with a sandbox and a live key through the CLI, walks the hosted flow in
Debian's Chromium (Playwright; `apt-get install chromium`) through each sandbox vendor, the
error branches, removing access and the live vendors, and writes one PNG per page (a few
also at 375 px wide) into the folder given. Expired links are not shown: that needs 24 h
(tests/web/test_link_flow.py covers it with a fake clock)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


def cli(env: dict[str, str], workdir: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "energyhub", *args, "--json"],
        cwd=workdir,
        env=env,
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
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                try:
                    shoot = Shooter(browser, base, keys, out)
                    walk(shoot)
                finally:
                    browser.close()
    print(f"{shoot.count} screenshots in {out}")


if __name__ == "__main__":
    main()
