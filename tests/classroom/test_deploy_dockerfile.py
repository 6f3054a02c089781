"""deploy/Dockerfile, tested as far as a machine without a Docker engine allows.

No image is built here. What is checked instead:

* the base image is a Jupyter Docker Stacks image whose tag names a Python the kit supports
  (>= 3.11, the one environment.yml and ``make test`` use);
* the guide (docs/workshop.md) and the Dockerfile name the same JupyterHub versions, and the
  Dockerfile's default is one of them;
* the Dockerfile's install ``RUN`` line — its own text, run by ``sh`` in this checkout with the
  build argument as the environment variable Docker makes of it and a clean venv's ``python``
  and ``pip`` (a current pip, as the image has: :func:`clean_venv`) first on ``PATH`` —
  resolves for the ``JUPYTERHUB_VERSION`` s the guide names, with every other package at the
  lock's pin: in ``make test`` the oldest and the newest of
  those the real install below does not cover, in ``make soak`` (``AGENTPROTO_SOAK=1``) all.
  The line is not edited: the ``pip`` it finds on
  ``PATH`` is a shim that runs the venv's pip with ``--dry-run --ignore-installed --report``
  appended (not environment variables, which would reach the pip that builds the wheel in
  its isolated build environment too);
* for the default version the whole line really runs (install, JupyterLab defaults, course
  check), and ``agentproto-start`` — the image's start command — then gives a learner's empty
  home the course and a font cache and execs the server command, on first and later starts,
  never replacing an edited notebook.

Needs the package index (or a warm pip cache / local index); skipped when neither answers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import venv
from importlib import metadata
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
START = ROOT / "deploy" / "agentproto-start"
GUIDE = ROOT / "docs" / "workshop.md"
LOCK = ROOT / "requirements" / "lock.txt"
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
#: What pip says when it cannot reach the index (not: a version that does not exist).
_OFFLINE = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "NewConnectionError",
    "Max retries",
)


def instructions(text: str) -> list[tuple[str, str]]:
    """``(KEYWORD, arguments)`` of each Dockerfile instruction, continuation lines joined."""
    out, current = [], ""
    for line in text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        keyword, _, rest = current.strip().partition(" ")
        out.append((keyword.upper(), rest.strip()))
        current = ""
    return out


INSTRUCTIONS = instructions(DOCKERFILE.read_text())


def build_args() -> dict[str, str]:
    return dict(rest.split("=", 1) for kw, rest in INSTRUCTIONS if kw == "ARG" and "=" in rest)


def install_run_line() -> str:
    (line,) = [rest for kw, rest in INSTRUCTIONS if kw == "RUN" and "pip install" in rest]
    return line


def lock() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version
    return pins


def guide_versions() -> list[str]:
    """Every ``JUPYTERHUB_VERSION=X.Y.Z`` the guide names, in order, once each."""
    return list(dict.fromkeys(re.findall(r"JUPYTERHUB_VERSION=(\d+\.\d+\.\d+)", GUIDE.read_text())))


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def resolve_versions() -> list[str]:
    """The guide's versions the dry-run resolve checks: all of them under ``make soak``; else
    the oldest and the newest besides the Dockerfile's default, which the real install proves."""
    versions = guide_versions()
    if os.environ.get("AGENTPROTO_SOAK"):
        return versions
    others = [v for v in versions if v != build_args()["JUPYTERHUB_VERSION"]] or versions
    return sorted({min(others, key=_version_key), max(others, key=_version_key)}, key=_version_key)


def clean_env(**extra: str) -> dict[str, str]:
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "MPLCONFIGDIR", "XDG_CACHE_HOME"}
    return {k: v for k, v in os.environ.items() if k not in drop} | extra


#: The pip of ``make test``'s environment (the Makefile upgrades it to ``pip>=24``).
PIP_VERSION = metadata.version("pip")


def clean_venv(home: Path) -> Path:
    """A venv with no packages but a current pip, as the image has: Docker Stacks images are
    rebuilt weekly with conda-forge's newest pip. The pip this Python's ``venv`` seeds (ensurepip;
    23.2 for 3.11.7) would be a stand-in three years older than the image's, which also spends
    three times the CPU on resolving the line (it re-checks every file of every release against
    every platform tag). The pip is put in with uv, the installer the Makefile uses (that step
    is not what is tested here), at the version of ``make test``'s pip; where uv cannot, the
    seeded pip upgrades itself to it."""
    python = str(home / "bin" / "python")
    uv = [sys.executable, "-m", "uv", "pip", "install", "-q", "--compile-bytecode"]  # pip runs often
    uv += ["--python", python, f"pip=={PIP_VERSION}"]
    venv.create(home, with_pip=False)
    if subprocess.run(uv, capture_output=True, env=clean_env(), timeout=600).returncode == 0:
        return home
    venv.create(home, with_pip=True, clear=True)
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", f"pip=={PIP_VERSION}"]
    proc = subprocess.run(pip, capture_output=True, text=True, env=clean_env(), timeout=600)
    if proc.returncode != 0 and any(word in proc.stdout + proc.stderr for word in _OFFLINE):
        pytest.skip(f"the package index cannot be reached: {proc.stderr[-300:]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return home


def run_in_build(
    line: str, home: Path, tmp: Path, version: str, first_on_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """*line* as Docker's ``RUN`` runs it: ``sh -c``, ARGs as environment, WORKDIR the source."""
    path = [str(first_on_path)] if first_on_path else []
    environment = clean_env(
        PATH=os.pathsep.join([*path, str(home / "bin"), os.environ.get("PATH", os.defpath)]),
        TMPDIR=str(tmp),
        JUPYTERHUB_VERSION=version,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    proc = subprocess.run(
        ["sh", "-c", line], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=1500
    )
    if proc.returncode != 0 and any(word in proc.stdout + proc.stderr for word in _OFFLINE):
        pytest.skip(f"the package index cannot be reached: {proc.stderr[-300:]}")
    return proc


def test_the_base_image_is_docker_stacks_with_a_python_the_kit_supports():
    (base_from,) = [rest for kw, rest in INSTRUCTIONS if kw == "FROM"]
    image = build_args()["BASE_IMAGE"] if base_from == "${BASE_IMAGE}" else base_from
    match = re.fullmatch(r"quay\.io/jupyter/([a-z-]+-notebook):python-(3)\.(\d+)", image)
    assert match, f"not a Docker Stacks image with a python-3.X tag: {image}"
    python = f"{match.group(2)}.{match.group(3)}"
    assert (3, int(match.group(3))) >= (3, 11)
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert SpecifierSet(requires).contains(python + ".0")
    env_python = re.search(r"^\s*-\s*python=(\d+\.\d+)", (ROOT / "environment.yml").read_text(), re.M)
    assert env_python and env_python.group(1) == python, "the image's Python is not the one make test uses"


def test_the_install_line_takes_every_pin_from_the_lock_but_jupyterhubs():
    line = install_run_line()
    assert "requirements/lock.txt" in line and "jupyterhub==${JUPYTERHUB_VERSION}" in line
    assert '".[course]"' in line, "the image must install the course extra"
    assert "environment.yml" not in line, "environment.yml pins jupyterhub through the classroom extra"


def test_the_guide_and_the_dockerfile_name_the_same_jupyterhub_versions():
    versions = guide_versions()
    default = build_args()["JUPYTERHUB_VERSION"]
    assert default in versions, f"the Dockerfile's default {default} is not in the guide's list {versions}"
    assert lock()["jupyterhub"] in versions, "the guide must say which hub the lock's JupyterHub is for"
    assert any(v.startswith("5.") for v in versions), "z2jh 4.x charts run JupyterHub 5"
    header = DOCKERFILE.read_text().split("ARG BASE_IMAGE", 1)[0]
    for version in re.findall(r"JUPYTERHUB_VERSION=(\d+\.\d+\.\d+)", header):
        assert version in versions, f"the Dockerfile's comment names {version}, the guide does not"
    guide = re.sub(r"\\\n\s*", " ", GUIDE.read_text())  # shell continuation lines joined
    assert "helm repo add jupyterhub https://hub.jupyter.org/helm-chart/" in guide
    assert re.search(
        r"helm upgrade --cleanup-on-fail --install \S+ jupyterhub/jupyterhub .*--version[= ]4\.", guide
    )


@pytest.fixture(scope="module")
def resolver_venv(tmp_path_factory) -> Path:
    return clean_venv(tmp_path_factory.mktemp("docker-resolve") / "venv")


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("version", resolve_versions())
def test_the_dockerfiles_install_resolves_for_every_version_the_guide_names(version, resolver_venv, tmp_path):
    line = install_run_line()
    steps = line.split(" && ")
    upto = next(i for i, step in enumerate(steps) if step.lstrip().startswith("pip install"))
    report = tmp_path / "report.json"
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "pip").write_text(
        f'#!/bin/sh\nexec "{resolver_venv / "bin" / "python"}" -m pip "$@" --dry-run --ignore-installed'
        f' --report "{report}"\n'
    )
    (shim / "pip").chmod(0o755)
    proc = run_in_build(" && ".join(steps[: upto + 1]), resolver_venv, tmp_path, version, first_on_path=shim)
    assert proc.returncode == 0, f"JUPYTERHUB_VERSION={version} does not resolve:\n{proc.stderr[-3000:]}"
    resolved = {
        canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    assert resolved["jupyterhub"] == version
    assert "agentproto" in resolved and "jupyterlab" in resolved and "grpcio" in resolved
    pins = lock()
    off = {n: (v, pins[n]) for n, v in resolved.items() if n in pins and n != "jupyterhub" and v != pins[n]}
    assert not off, f"packages not at the lock's pin: {off}"


@pytest.fixture(scope="module")
def image_env(tmp_path_factory) -> Path:
    """The whole install line, really run, for the Dockerfile's default JupyterHub."""
    base = tmp_path_factory.mktemp("docker-image")
    home = clean_venv(base / "venv")
    proc = run_in_build(install_run_line(), home, base, build_args()["JUPYTERHUB_VERSION"])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return home


def start(image_env: Path, home: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(HOME=str(home), PATH=f"{image_env / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(
        [str(START), *command], env=env, cwd=home, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_default_build_installs_the_course_with_its_jupyterhub(image_env):
    python = str(image_env / "bin" / "python")
    code = (
        "import importlib.metadata as m, agentproto.course.launcher as l; "
        "print(m.version('jupyterhub'), m.version('agentproto'), l.course_source())"
    )
    out = subprocess.run(  # not in the checkout: `-c` would import agentproto from the current folder
        [python, "-c", code], capture_output=True, text=True, env=clean_env(), check=True, cwd=image_env
    )
    hub, kit, source = out.stdout.split()
    assert hub == build_args()["JUPYTERHUB_VERSION"] and kit == "0.1.0"
    assert "site-packages" in source, f"the course should come from the installed package, not {source}"
    single = subprocess.run(
        [str(image_env / "bin" / "jupyterhub-singleuser"), "--version"], capture_output=True, text=True
    )
    assert single.returncode == 0, single.stderr


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_agentproto_start_gives_an_empty_home_the_course_and_keeps_edits(image_env, tmp_path):
    home = tmp_path / "jovyan"
    home.mkdir()  # the learner's new persistent volume: empty
    probe = [sys.executable, "-c", "import os, sys; print('SERVER', os.getcwd(), *sys.argv[1:])", "--flag"]
    first = start(image_env, home, *probe)
    assert first.returncode == 0, first.stderr
    assert f"SERVER {home} --flag" in first.stdout, "the server command was not exec'd with its arguments"
    course = home / "agentproto-course"
    assert set(NOTEBOOKS) <= {p.name for p in course.iterdir()}
    assert list((home / ".cache" / "matplotlib").glob("fontlist-*.json")), "no font cache"

    edited = course / NOTEBOOKS[0]
    edited.write_bytes(edited.read_bytes() + b"\n")
    mine = edited.read_bytes()
    (course / NOTEBOOKS[3]).unlink()
    again = start(image_env, home, *probe)
    assert again.returncode == 0 and "SERVER" in again.stdout
    assert edited.read_bytes() == mine, "an edited notebook was replaced"
    assert (course / NOTEBOOKS[3]).is_file(), "a deleted notebook was not restored"


def test_agentproto_start_starts_the_server_even_when_the_copy_fails(tmp_path):
    home = tmp_path / "jovyan"
    home.mkdir()
    (home / "agentproto-course").write_text("a file where the folder should be")
    env = clean_env(HOME=str(home), AGENTPROTO_PYTHON=sys.executable)
    proc = subprocess.run(
        [str(START), "sh", "-c", "echo started $0", "server"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and "started server" in proc.stdout
    assert "the course was not copied" in proc.stderr


def test_the_image_and_the_guide_start_learners_through_agentproto_start():
    (cmd,) = [rest for kw, rest in INSTRUCTIONS if kw == "CMD"]
    assert json.loads(cmd)[0] == "agentproto-start"
    copy = [rest for kw, rest in INSTRUCTIONS if kw == "RUN" and "agentproto-start" in rest]
    assert copy and "/usr/local/bin/agentproto-start" in copy[0]
    assert os.access(START, os.X_OK)
    guide = GUIDE.read_text()
    assert re.search(r"cmd:\s*\n?\s*-?\s*\[?\s*agentproto-start", guide), "z2jh's singleuser.cmd must run it"
    z2jh = guide.split("## Zero to JupyterHub", 1)[-1].split("\n## ", 1)[0]
    assert "lifecycleHooks:" not in z2jh, "a postStart hook may run after the server started"
