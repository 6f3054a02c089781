"""The quality gates are part of the test suite: ruff (lint and format), mypy, import-linter.

Each gate is configured in pyproject.toml; this file only runs them, so `make test` fails when
one of them does. The layer contracts say, in one table, what may import what.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed: it comes with the test extra (make test installs it)")
    return found


def _run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_ruff_finds_nothing_to_lint():
    result = _run(_tool("ruff"), "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted_by_ruff():
    result = _run(_tool("ruff"), "format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_passes_strict_on_the_protocol_packages_and_normal_on_the_rest():
    result = _run(_tool("mypy"), "--cache-dir", str(ROOT / ".mypy_cache"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_import_layer_contracts_hold():
    result = _run(_tool("lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
