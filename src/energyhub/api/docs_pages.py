"""`/docs` (Swagger UI) and `/redoc` that work with no internet: their scripts, styles and
icon come from this service, out of a pinned package that ships them (`fastapi-offline`),
not from a CDN; ReDoc is told not to fetch Google's fonts."""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

ASSETS_PATH = "/static/docs"
"""Under the public `/static/` prefix (no key), mounted ahead of the pages' stylesheets."""


def install_docs(app: FastAPI, openapi_url: str = "/openapi.json") -> None:
    """The two documentation pages and their assets (the app is made with `docs_url` and
    `redoc_url` None)."""
    assets = files("fastapi_offline") / "static"
    app.mount(ASSETS_PATH, StaticFiles(directory=str(assets)), name="docs-assets")
    title = f"{app.title} API"

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
