"""The fixtures shared by the whole suite, and the headless plotting backend.

Nothing here imports matplotlib or another course library: ``pytest tests/a2a`` starts with the
``server`` extra alone. Plots in tests use the non-interactive Agg backend. It is selected with
``matplotlib.use``, and only once a test module has imported matplotlib, rather than with the
``MPLBACKEND`` environment variable, which notebook kernels started by nbval would inherit (and
then show no figures).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from agentproto.clock import FakeClock
from tests.servers import CHROMIUM, CHROMIUM_ARGS


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        matplotlib.use("Agg")


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at its default start, advanced only by the test."""
    return FakeClock()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def chromium_path() -> str:
    """The system Chromium; skipped when absent, unless ``REQUIRE_BROWSER=1`` (as in CI)."""
    if CHROMIUM is None:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail("REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
        pytest.skip("chromium not installed")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """A headless Chromium driven by Playwright, one per test module."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
