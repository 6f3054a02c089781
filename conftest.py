"""The nbval options, set only where nbval is installed, and where nbval's run is left out.

They were ``addopts`` in pyproject.toml, which made every pytest run fail with "unrecognized
arguments" in an environment without nbval (the ``server`` extra alone, ``-p no:nbval``). This
file sits at the root so that it also applies to ``pytest notebooks/NN_slug.ipynb``; the test
fixtures are in tests/conftest.py.

Under ``make test`` (pytest with no paths: the testpaths) and a Chromium to drive, the browser
check runs every notebook in JupyterLab and compares the saved outputs with the stored ones by
nbval's rules (tests/stored_outputs.py), so nbval does not run the notebooks a second time.
Without Chromium, and whenever notebooks are named (``pytest notebooks/``), nbval runs them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.servers import CHROMIUM

SANITIZE = Path(__file__).resolve().parent / "notebooks" / "sanitize.cfg"


def pytest_configure(config: pytest.Config) -> None:
    """Every notebook under nbval in the test environment: fresh outputs must equal stored ones."""
    if not config.pluginmanager.hasplugin("nbval"):
        return
    option = config.option
    if not option.nbval_lax:
        option.nbval = True
    if not option.nbval_kernel_name:  # a kernel asked for by name replaces the current env
        option.nbval_current_env = True
    if option.nbval_sanitize_with is None:
        option.nbval_sanitize_with = str(SANITIZE)
    if option.nbval_cell_timeout == 2000:  # nbval's default
        option.nbval_cell_timeout = 300


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave nbval's own run of notebooks/ out when the browser check does its comparison."""
    playwright = importlib.util.find_spec("playwright") is not None
    browser_check = CHROMIUM is not None and playwright and not config.option.markexpr
    if browser_check and config.args_source is pytest.Config.ArgsSource.TESTPATHS:
        if collection_path.suffix == ".ipynb":
            return True
    return None
