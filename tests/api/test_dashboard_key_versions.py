"""The dashboard's API keys page shows each key's API version (CONTRACT 13)."""

from __future__ import annotations

import re

import httpx

from energyhub.bootstrap import build_app
from energyhub.domain.accounts import Environment
from energyhub.domain.versions import ApiVersion
from tests.api.test_dashboard import add_member, sign_in
from tests.support import Api


async def test_the_keys_page_shows_each_keys_version(api: Api) -> None:
    caller = await api.caller()
    accounts = api.container.services.accounts
    legacy = await accounts.create_key(caller.account_id, Environment.SANDBOX, prefix="sk_sandbox_")
    email = await add_member(api, caller)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(api.container)), base_url="http://testserver"
    ) as browser:
        assert (await sign_in(browser, email)).status_code == 303
        page = await browser.get("/dashboard/sandbox/keys")
        assert page.status_code == 200
        assert "API version" in page.text
        rows = {
            key_id: re.sub(r"\s+", " ", cell).strip()
            for key_id, cell in re.findall(
                r'<span class="hint">(key_\w+)</span></td>\s*<td[^>]*>(.*?)</td>', page.text, re.S
            )
        }
        assert rows[caller.key_id] == "1.0"
        assert rows[legacy.api_key.id] == 'legacy <span class="hint">(deprecated)</span>'
        await accounts.set_key_version(legacy.api_key.id, ApiVersion.V1)
        page = await browser.get("/dashboard/sandbox/keys")
        assert "(deprecated)" not in page.text
