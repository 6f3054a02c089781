"""``make wheelhouse``: a class installs the course from a folder of wheels with no network.

The wheelhouse is built by ``tools/wheelhouse.py`` (what ``make wheelhouse`` runs) into a
temporary folder; a clean venv outside the checkout then installs ``agentproto[course]`` from it
with ``pip install --no-index --find-links DIR`` inside a new network namespace (``unshare
--net``) when this machine allows one, and pip's configuration files and ``PIP_*`` variables are
shut out either way, so no other wheel folder or index of this machine can stand in for the
wheelhouse. Without a namespace the test says so and relies on ``--no-index``, ``PIP_NO_INDEX=1``
and an unroutable proxy. The installed course is then checked: ``agentproto doctor``, the gRPC
binding and the course modules import, ``jupyter lab --version``, every version the lock's.

Skipped when the package index cannot be reached to build the wheelhouse (as envs.py does).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import venv
from pathlib import Path

import pytest
from packaging.tags import sys_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

from tests.envs import LOCK, ROOT, run, site_packages, size_mb

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

TOOL = ROOT / "tools" / "wheelhouse.py"
UNROUTABLE_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, nothing is fetched
#: Shipped with every venv (ensurepip), not taken from the wheelhouse.
SEEDED = {"pip", "setuptools"}


def lock() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version
    return pins


def index_reachable(tmp: Path) -> bool:
    """Can pip fetch one small pinned wheel (from the index or pip's cache)?"""
    pin = f"jsonpatch=={lock()['jsonpatch']}"
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(tmp), pin]
    return run(cmd, timeout=300).returncode == 0


def isolation() -> tuple[list[str], str]:
    """The command prefix that cuts the network off, and a sentence saying what it is."""
    if shutil.which("unshare"):
        for prefix in (["unshare", "--net", "--map-root-user"], ["unshare", "--net"]):
            if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
                return prefix, f"a new network namespace ({' '.join(prefix)})"
    return (
        [],
        "NO network namespace (unshare is not allowed here): --no-index, PIP_NO_INDEX=1 and a dead proxy",
    )


def offline_env() -> dict[str, str]:
    """This process's environment without pip's configuration or any proxy, index or find-links."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k.upper() not in drop}
    return env | {
        "PIP_CONFIG_FILE": os.devnull,  # no pip.conf: not this machine's find-links or local indexes
        "PIP_NO_INDEX": "1",
        "http_proxy": UNROUTABLE_PROXY,
        "https_proxy": UNROUTABLE_PROXY,
        "HTTP_PROXY": UNROUTABLE_PROXY,
        "HTTPS_PROXY": UNROUTABLE_PROXY,
    }


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheelhouse")
    start = time.monotonic()
    result = run([sys.executable, str(TOOL), "--out", str(out)], timeout=1200, cwd=out)
    elapsed = time.monotonic() - start
    if result.returncode != 0 and not index_reachable(tmp_path_factory.mktemp("probe")):
        pytest.skip(f"the package index cannot be reached to build the wheelhouse: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stdout + result.stderr
    wheels = list(out.glob("*.whl"))
    size = sum(w.stat().st_size for w in wheels) / 1e6
    print(f"wheelhouse: {len(wheels)} wheels, {size:.1f} MB, built in {elapsed:.0f} s")
    return out


@pytest.fixture(scope="module")
def offline_venv(wheelhouse, tmp_path_factory) -> tuple[Path, list[str]]:
    """A clean venv outside the checkout with agentproto[course] installed from the wheelhouse
    and nothing else; returns it and the prefix that runs a command without network."""
    home = tmp_path_factory.mktemp("offline-venv") / "agentproto-env"
    assert not home.resolve().is_relative_to(ROOT)
    venv.create(home, with_pip=True)  # ensurepip: the pip bundled with this Python, no download
    prefix, how = isolation()
    print(f"offline install through {how}")
    python = str(home / "bin" / "python")
    if prefix:  # the namespace really has no route out
        probe = (
            "import socket\ntry: socket.create_connection(('151.101.0.223', 443), 3)\nexcept OSError: pass\n"
        )
        probe += "else: raise SystemExit('the network namespace reaches the internet')"
        result = subprocess.run([*prefix, python, "-c", probe], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
    cmd = [python, "-m", "pip", "install", "-q", "--no-cache-dir", "--disable-pip-version-check"]
    cmd += ["--root-user-action=ignore", "--no-index", "--find-links", str(wheelhouse), "agentproto[course]"]
    start = time.monotonic()
    result = subprocess.run(
        [*prefix, *cmd], capture_output=True, text=True, timeout=1200, env=offline_env(), cwd=home.parent
    )
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stdout + result.stderr
    print(f"offline install: {elapsed:.0f} s; site-packages {size_mb(site_packages(home)):.1f} MB")
    return home, prefix


def in_venv(offline_venv, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a program of the offline venv, still without network, outside the checkout."""
    home, prefix = offline_venv
    cmd = [*prefix, str(home / "bin" / args[0]), *args[1:]]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=300, env=offline_env(), cwd=home.parent
    )


def test_the_wheelhouse_holds_only_wheels_for_this_python_at_the_locked_versions(wheelhouse):
    assert not [p.name for p in wheelhouse.iterdir() if p.name.endswith((".tar.gz", ".zip"))]
    pins, here = lock(), set(sys_tags())
    names = set()
    for path in wheelhouse.glob("*.whl"):
        name, version, _, tags = parse_wheel_filename(path.name)
        names.add(name)
        assert tags & here, f"{path.name} does not install on this Python and platform"
        if name == "agentproto":
            assert str(version) == "0.1.0"
        else:
            assert name in pins, f"{path.name} is not pinned by requirements/lock.txt"
            assert str(version) == pins[name], f"{path.name}: the lock pins {pins[name]}"
    assert {"agentproto", "jupyterlab", "grpcio", "a2a-sdk", "numpy", "matplotlib"} <= names
    assert "pytest" not in names and "playwright" not in names, "the wheelhouse carries a test tool"


def test_the_wheelhouse_says_how_to_install_from_it_and_for_which_python(wheelhouse):
    assert (wheelhouse / "lock.txt").read_bytes() == LOCK.read_bytes()
    text = (wheelhouse / "README.txt").read_text()
    major, minor = sys.version_info[:2]
    assert f"python{major}.{minor} -m venv" in text
    assert 'pip install --no-index --find-links wheelhouse "agentproto[course]"' in text
    assert re.search(rf"CPython {major}\.{minor}\.\d+", text)
    assert sysconfig.get_platform() in text


def test_make_wheelhouse_runs_the_tool_into_the_folder_it_is_given(tmp_path):
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    result = run(["make", "-n", "wheelhouse", f"WHEELHOUSE={tmp_path}", "EXTRAS=classroom"], cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f'tools/wheelhouse.py --out "{tmp_path}" --extras "classroom"' in result.stdout


def test_the_offline_install_has_exactly_the_wheelhouse_at_the_locked_versions(offline_venv, wheelhouse):
    result = in_venv(
        offline_venv, "python", "-m", "pip", "list", "--format=json", "--disable-pip-version-check"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    installed = {canonicalize_name(d["name"]): d["version"] for d in json.loads(result.stdout)}
    offered = {
        parse_wheel_filename(p.name)[0]: str(parse_wheel_filename(p.name)[1])
        for p in wheelhouse.glob("*.whl")
    }
    assert {n: v for n, v in installed.items() if n not in SEEDED} == offered


def test_agentproto_doctor_passes_in_the_offline_install_grpc_binding_included(offline_venv):
    result = in_venv(offline_venv, "agentproto", "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "required checks passed" in result.stdout
    for name in ("grpcio", "a2a-sdk", "googleapis-common-protos", "jupyterlab"):
        assert re.search(rf"^\[OK\]\s+{name}\s", result.stdout, re.M), result.stdout


def test_the_course_modules_and_the_grpc_binding_import_from_the_installed_wheel(offline_venv):
    code = (
        "import agentproto, agentproto.a2a._grpc_server, agentproto.course.a2a_bindings\n"
        "import agentproto.course.widgets, agentproto.course.plots\n"
        "print(agentproto.__file__)\n"
    )
    result = in_venv(offline_venv, "python", "-c", code)
    assert result.returncode == 0, result.stdout + result.stderr
    home, _ = offline_venv
    assert Path(result.stdout.strip()).is_relative_to(site_packages(home)), result.stdout  # not the clone


def test_jupyter_lab_runs_from_the_offline_install(offline_venv):
    result = in_venv(offline_venv, "jupyter", "lab", "--version")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == lock()["jupyterlab"]
