"""Clean virtual environments outside the checkout, built from this tree's wheel.

Shared by the packaging tests and the browser checks. The learner's environment
(:func:`shared_course_env`: the wheel with the ``course`` extra and nothing else) is built once
per test run and shared by every xdist worker, under a file lock. The wheel is built with the
hatchling of the test environment (no build isolation, so no download); dependencies are
installed at the versions pinned in requirements/lock.txt the way the Makefile installs them
(uv when the test environment has it, else pip), which needs the package index or a warm
cache, so a test is skipped when neither answers.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
    env = clean_env(**kwargs.pop("env", {}))
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
    result = _install(python, requirement)
    if result.returncode != 0 and any(word in result.stderr for word in _OFFLINE):
        pytest.skip(f"the package index cannot be reached to install {requirement}: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stdout + result.stderr
    return home


def _uv() -> list[str] | None:
    """``python -m uv`` of the test environment, as ``make`` installs it (None without uv)."""
    probe = run([sys.executable, "-m", "uv", "--version"], timeout=60)
    return [sys.executable, "-m", "uv"] if probe.returncode == 0 else None


def _install(python: str, requirement: str) -> subprocess.CompletedProcess[str]:
    """Install ``requirement`` into the venv of ``python`` at the locked versions the way the
    Makefile does: with uv when it is there and can install, else with pip."""
    uv = _uv()
    if uv is not None:
        install = [*uv, "pip", "install", "-q", "--compile-bytecode", "--python", python]
        result = run([*install, "-c", str(LOCK), requirement])
        if result.returncode == 0:
            return result
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", str(LOCK)]
    return run([*pip, requirement])


def shared_course_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install "agentproto[course]"`` from this tree's wheel, as ``make venv`` builds it.

    One per test run: the first worker to ask builds it in the run's temporary root (shared by
    all xdist workers) while the others wait on a lock; a build that failed is retried by the
    next one to ask rather than handed out half made.
    """
    base = tmp_path_factory.getbasetemp()
    run_root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    home, ready = run_root / "course-venv", run_root / "course-venv.ready"
    with open(run_root / "course-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready.exists():
            dist = run_root / "course-dist"
            dist.mkdir(exist_ok=True)
            for old in dist.glob("*.whl"):
                old.unlink()
            wheel = build_wheel(dist)
            install(home, f"{wheel}[course]", drop_setuptools=True)
            ready.touch()
    assert not home.resolve().is_relative_to(ROOT)
    return home


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point a child at the test venv."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR"}
    return {k: v for k, v in os.environ.items() if k not in drop} | extra


def site_packages(home: Path) -> Path:
    (path,) = (home / "lib").glob("python3.*/site-packages")
    return path


def size_mb(folder: Path, *, without: tuple[str, ...] = ()) -> float:
    """Megabytes of the files under ``folder``, leaving out the top-level entries whose names
    start with one of ``without`` (e.g. the venv's own ``pip``)."""
    return (
        sum(
            p.stat().st_size
            for p in folder.rglob("*")
            if p.is_file() and not p.relative_to(folder).parts[0].startswith(without or ("\0",))
        )
        / 1e6
    )


def installed(home: Path) -> set[str]:
    return {p.name.split("-")[0].lower() for p in site_packages(home).glob("*.dist-info")}
