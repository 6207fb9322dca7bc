"""What every browser test module shares: one Chromium (Debian's) per module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.support import CHROMIUM_ARGS, NO_CHROMIUM, chromium_path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium launched once for the module (a playwright `Browser`)."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    executable = chromium_path()
    if executable is None:
        pytest.skip(NO_CHROMIUM)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
