"""`/docs` and `/redoc` work with no internet: every script, style and icon they load is
served by the service itself (no CDN, no Google fonts), with no API key."""

from __future__ import annotations

import re

import pytest

from tests.support import Api

ASSET = re.compile(r"""(?:src|href)=["']([^"']+)["']|url\(["']?([^"')]+)""")


def loaded_urls(html: str) -> list[str]:
    return [a or b for a, b in ASSET.findall(html)]


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_the_documentation_pages_load_only_what_the_service_serves(
    api: Api, page: str
) -> None:
    answer = await api.client.get(page)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    urls = loaded_urls(answer.text)
    assert urls, answer.text
    outside = [url for url in urls if re.match(r"(?:https?:)?//", url)]
    assert outside == [], f"{page} loads from elsewhere: {outside}"
    assert "fonts.googleapis" not in answer.text
    for url in urls:
        asset = await api.client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url


async def test_the_assets_are_scripts_and_styles(api: Api) -> None:
    script = await api.client.get("/static/docs/swagger-ui-bundle.js")
    assert script.headers["content-type"].split(";")[0] in (
        "text/javascript",
        "application/javascript",
    )
    style = await api.client.get("/static/docs/swagger-ui.css")
    assert style.headers["content-type"].startswith("text/css")
    assert (await api.client.get("/static/docs/nothing-here.js")).status_code == 404


async def test_the_pages_point_at_the_document(api: Api) -> None:
    for page in ("/docs", "/redoc"):
        assert "/openapi.json" in (await api.client.get(page)).text
    assert (await api.client.get("/openapi.json")).status_code == 200


async def test_the_root_names_the_docs_the_dashboard_and_the_quickstart(api: Api) -> None:
    answer = await api.client.get("/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["success"] is True
    assert body["data"]["docs"] == "/docs"
    assert body["data"]["dashboard"] == "/dashboard"
    assert "walk-through" in body["data"]["quickstart"]
    assert body["meta"]["requestId"] == answer.headers["x-request-id"]

    page = await api.client.get("/", headers={"accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    for link in ('href="/docs"', 'href="/dashboard"', 'href="/redoc"'):
        assert link in page.text
