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
from pathlib import Path
from typing import Any

import pytest

from agentproto.clock import FakeClock
from tests.servers import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]

#: The expensive modules, heaviest first, with the seconds their tests took in one ``make test``
#: on the 2-core reference machine (a junit report of 2026-12-07). Under ``make test`` a module
#: goes to whichever xdist worker is free next, in collection order (``--dist loadfile
#: --no-loadscope-reorder``): collected first, the long ones start first, and the short ones
#: fill the gaps at the end, instead of one long module running alone while the others idle.
HEAVY_FIRST = {
    "tests/browser/test_notebook_widgets_second_half.py": 230,
    "tests/browser/test_voila_first_half.py": 215,
    "tests/browser/test_notebook_widgets.py": 200,
    "tests/browser/test_voila_second_half.py": 195,
    "tests/classroom/test_classroom_site.py": 180,
    "tests/classroom/test_deploy_dockerfile.py": 125,
    "tests/classroom/test_classroom_present.py": 120,
    "tests/packaging/test_wheelhouse.py": 105,
    "tests/classroom/test_classroom_hub.py": 90,
    "tests/classroom/test_deploy_tljh.py": 60,
    "tests/a2a/test_a2a_bench.py": 60,
    "tests/packaging/test_course_env.py": 35,
    "tests/reliability/test_outside_probe.py": 35,
    "tests/test_quality_gates.py": 35,
    "tests/reliability/test_limits_slowloris.py": 20,
    "tests/test_teaching.py": 18,
    "tests/test_cli.py": 17,
    "tests/agui/test_server.py": 17,
    "tests/reliability/test_fuzz_stages.py": 16,
    "tests/classroom/test_classroom_launcher.py": 15,
    "tests/packaging/test_wheel.py": 13,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules of :data:`HEAVY_FIRST` first, in its order; the rest as collected."""
    stale = [name for name in HEAVY_FIRST if not (ROOT / name).exists()]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py HEAVY_FIRST names modules that are gone: {stale}")
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


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
