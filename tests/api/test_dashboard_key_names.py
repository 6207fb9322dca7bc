"""The dashboard's API keys page (issue 18): a key gets a name from its form, the list shows
name, hint, created, last used ("never used" until a request), expiry and revocation, and the
form answers 303 (a reload makes no second key). On SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from energyhub.bootstrap import build_app
from tests.api.test_dashboard import add_member, csrf_of, sign_in
from tests.support import Api, Caller


@pytest.fixture
async def member(api: Api) -> AsyncIterator[tuple[Caller, httpx.AsyncClient]]:
    caller = await api.caller()
    email = await add_member(api, caller)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(api.container)), base_url="http://testserver"
    ) as browser:
        assert (await sign_in(browser, email)).status_code == 303
        yield caller, browser


def row_of(page: httpx.Response, key_id: str) -> str:
    """The key's table row as text, tags and runs of spaces folded."""
    found = re.search(rf"<tr>((?:(?!</tr>).)*?{key_id}.*?)</tr>", page.text, re.S)
    assert found is not None, page.text
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found[1])).strip()


async def test_a_named_key_is_listed_with_its_last_use(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    accounts = api.container.services.accounts
    page = await browser.get("/dashboard/sandbox/keys")
    assert 'name="name"' in page.text
    created_at = api.clock.now()
    made = await browser.post(
        "/dashboard/sandbox/keys", data={"csrf": csrf_of(page), "name": "billing cron"}
    )
    assert made.status_code == 303
    shown = await browser.get(made.headers["location"])
    assert "Your new key: billing cron" in shown.text
    key = re.search(r'id="new-key">(sk_test_[A-Za-z0-9]+)<', shown.text)
    assert key is not None
    reloaded = await browser.get(made.headers["location"])
    assert key[1] not in reloaded.text, "shown once"
    listed = await accounts.list_keys(caller.account_id)
    assert len(listed) == 2, "the reload made no second key"
    [new] = [k for k in listed if k.name == "billing cron"]

    assert row_of(reloaded, new.id) == (
        f"billing cron sk_test_…{key[1][-4:]} {new.id} 1.0 "
        f"{created_at:%Y-%m-%d %H:%M} does not expire Active never used Revoke"
    )
    api.clock.advance(timedelta(minutes=3))
    used = await api.client.get("/battery", headers={"x-api-key": key[1]})
    assert used.status_code == 200
    await accounts.usage.flush()
    page = await browser.get("/dashboard/sandbox/keys")
    assert f"Active last used {api.clock.now():%Y-%m-%d %H:%M} UTC" in row_of(page, new.id)
    assert "never used" in row_of(page, caller.key_id), "the other key was not used here"


async def test_a_name_too_long_comes_back_with_the_form(
    api: Api, member: tuple[Caller, httpx.AsyncClient]
) -> None:
    caller, browser = member
    page = await browser.get("/dashboard/sandbox/keys")
    refused = await browser.post(
        "/dashboard/sandbox/keys", data={"csrf": csrf_of(page), "name": "n" * 61}
    )
    assert refused.status_code == 303
    shown = await browser.get(refused.headers["location"])
    summary = re.search(r'class="error-summary" role="alert".*?</div>', shown.text, re.S)
    assert summary is not None
    assert "at most 60 characters" in summary[0]
    assert "send a shorter one" in summary[0]
    assert f'value="{"n" * 61}"' in shown.text, "what was typed stays"
    assert 'aria-invalid="true"' in shown.text
    assert "new-key" not in shown.text
    assert len(await api.container.services.accounts.list_keys(caller.account_id)) == 1
    again = await browser.get(refused.headers["location"])
    assert "error-summary" not in again.text, "said once"
