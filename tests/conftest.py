"""Shared test configuration.

Plots in tests use the non-interactive Agg backend. It is selected with ``matplotlib.use``
rather than the ``MPLBACKEND`` environment variable, which notebook kernels started by nbval
would inherit (and then show no figures).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``pytest -n`` (``make test``): a notebook's cells run in order in one kernel, so
    each notebook is one xdist group and goes to one worker whole (``--dist loadgroup``)."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.xdist_group(f"notebook-{item.path.stem}"))
