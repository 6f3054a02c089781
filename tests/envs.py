"""Clean virtual environments outside the checkout, built from this tree's wheel.

Shared by the packaging tests. The wheel is built with the hatchling of the test environment
(no build isolation, so no download); dependencies are installed at the versions pinned in
requirements/lock.txt, which needs the package index or a warm pip cache, so a test is skipped
when neither answers. Sizes count every file under site-packages, pip included.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"
_OFFLINE = (
    "No matching distribution",
    "Could not find",
    "connection",
    "Network is unreachable",
    "Temporary failure",
)


def run(args: list[str], timeout: float = 900, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run a command without this test environment leaking into it."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env.update(kwargs.pop("env", {}))
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env, **kwargs)


def build_wheel(out: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    result = run([*cmd, "--disable-pip-version-check", "-q", "-w", str(out), str(ROOT)])
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = out.glob("agentproto-*.whl")
    return path


def install(home: Path, requirement: str, *, drop_setuptools: bool = False) -> Path:
    """A venv at ``home`` with ``requirement`` installed (pinned by the lock); returns ``home``.

    ``drop_setuptools`` does what ``make venv`` does: Python 3.11's venv seeds setuptools, which
    nothing in the course needs (Python 3.12+ venvs no longer carry it).
    """
    venv.create(home, with_pip=True)
    python = str(home / "bin" / "python")
    if drop_setuptools:
        result = run([python, "-m", "pip", "uninstall", "-q", "-y", "setuptools"])
        assert result.returncode == 0, result.stdout + result.stderr
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", str(LOCK)]
    result = run([*pip, requirement])
    if result.returncode != 0 and any(word in result.stderr for word in _OFFLINE):
        pytest.skip(f"the package index cannot be reached to install {requirement}: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stdout + result.stderr
    return home


def site_packages(home: Path) -> Path:
    (path,) = (home / "lib").glob("python3.*/site-packages")
    return path


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def installed(home: Path) -> set[str]:
    return {p.name.split("-")[0].lower() for p in site_packages(home).glob("*.dist-info")}
