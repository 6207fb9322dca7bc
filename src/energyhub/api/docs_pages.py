"""Where a newcomer lands: `GET /` names the docs, the dashboard and the quickstart (a page
to a browser, the JSON envelope to anything else), and `/docs` (Swagger UI) and `/redoc`
work with no internet: their scripts, styles and icon come from this service, out of a
pinned package that ships them (`fastapi-offline`), not from a CDN; ReDoc is told not to
fetch Google's fonts."""

from __future__ import annotations

from importlib.resources import files

import orjson
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles

from energyhub.api.context import context_of
from energyhub.domain.clock import isoformat_utc

ASSETS_PATH = "/static/docs"
"""Under the public `/static/` prefix (no key), mounted ahead of the pages' stylesheets."""


QUICKSTART = "README.md, 'A first walk-through': the demo key, a first read and a first push"
INDEX = {
    "name": "energyhub",
    "docs": "/docs",
    "redoc": "/redoc",
    "openapi": "/openapi.json",
    "dashboard": "/dashboard",
    "quickstart": QUICKSTART,
}
INDEX_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>energyhub</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>energyhub</h1>
<p>Batteries and EV chargers behind one HTTP API.</p>
<ul>
<li><a href="/docs">API reference</a> (also as <a href="/redoc">ReDoc</a>,
and the <a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/dashboard">Dashboard</a>: keys, webhooks, deliveries and devices</li>
<li>Quickstart: {quickstart}</li>
</ul>
<p>Every API request sends its key in the <code>x-api-key</code> header.</p>
</body></html>
""".replace("{quickstart}", QUICKSTART.replace("'", "&#39;"))


def install_docs(app: FastAPI, openapi_url: str = "/openapi.json") -> None:
    """The two documentation pages and their assets (the app is made with `docs_url` and
    `redoc_url` None)."""
    assets = files("fastapi_offline") / "static"
    app.mount(ASSETS_PATH, StaticFiles(directory=str(assets)), name="docs-assets")
    title = f"{app.title} API"

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        if "text/html" in request.headers.get("accept", ""):
            return HTMLResponse(INDEX_PAGE)
        context = context_of(request.scope)
        meta = {
            "requestId": context.request_id,
            "environment": None,  # no key is needed here, so none applies
            "timestamp": isoformat_utc(request.app.state.services.clock.now()),
            "latencyMs": context.latency_ms(),
        }
        body = {"success": True, "data": INDEX, "meta": meta}
        return Response(orjson.dumps(body), media_type="application/json")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=title,
            redoc_js_url=f"{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS_PATH}/favicon.png",
            with_google_fonts=False,
        )
