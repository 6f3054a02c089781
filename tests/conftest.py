"""Shared test configuration.

Plots in tests use the non-interactive Agg backend. It is selected with ``matplotlib.use``
rather than the ``MPLBACKEND`` environment variable, which notebook kernels started by nbval
would inherit (and then show no figures).
"""

from __future__ import annotations

import os

import matplotlib
import pytest
from servers import CHROMIUM

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def chromium_path() -> str:
    """The system Chromium; skipped when absent, unless ``REQUIRE_BROWSER=1`` (as in CI)."""
    if CHROMIUM is None:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail("REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
        pytest.skip("chromium not installed")
    return CHROMIUM
