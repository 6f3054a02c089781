"""The three descriptions of the environment (pyproject, lock file, environment.yml) agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements/lock.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"lock line is not an exact pin: {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def all_requirements() -> list[Requirement]:
    project = pyproject()["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    # an extra may pull in another of our own extras ("agentproto[server]"): not a pin
    return [r for r in reqs if canonicalize_name(r.name) != "agentproto"]


def test_every_direct_dependency_is_pinned_in_the_lock_file_within_its_bounds():
    pins = lock()
    for req in all_requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in requirements/lock.txt"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"lock pins {req.name}=={pins[name]}, outside pyproject's {req.specifier}"
        )


def test_direct_dependencies_are_bounded_above_so_a_classroom_gets_the_same_result():
    for req in all_requirements():
        spec = str(req.specifier)
        assert "==" in spec or "<" in spec, f"{req} has no upper bound"


def test_interop_extra_pins_the_official_sdk_versions_the_kit_is_tested_against():
    extra = {
        canonicalize_name(Requirement(r).name): str(Requirement(r).specifier)
        for r in pyproject()["project"]["optional-dependencies"]["interop"]
    }
    assert extra == {"ag-ui-protocol": "==1.0.0", "a2a-sdk": "==1.3.0"}


def test_environment_yml_uses_the_same_lock_and_extras_as_the_makefile():
    text = (ROOT / "environment.yml").read_text()
    makefile = (ROOT / "Makefile").read_text()
    python = re.search(r"^\s*-\s*python=(\d+\.\d+)", text, re.M)
    assert python, "environment.yml must pin python"
    assert SpecifierSet(pyproject()["project"]["requires-python"]).contains(python.group(1) + ".0")
    assert "-c requirements/lock.txt" in text and "-c requirements/lock.txt" in makefile
    extras = re.search(r"-e \.\[([\w,]+)\]", text).group(1)
    assert extras == re.search(r"^TEST_EXTRAS\s*:=\s*([\w,]+)", makefile, re.M).group(1)


def test_the_lock_file_is_what_the_test_environment_runs():
    from importlib import metadata

    pins = lock()
    for name in ("pydantic", "starlette", "ag-ui-protocol", "a2a-sdk", "jupyterlab"):
        assert metadata.version(name) == pins[canonicalize_name(name)]


def test_the_base_install_is_the_small_core_and_extras_add_the_rest():
    project = pyproject()["project"]
    base = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    assert base == {"pydantic", "jsonpatch", "jsonschema"}
    extras = project["optional-dependencies"]
    server = {canonicalize_name(Requirement(r).name) for r in extras["server"]}
    assert {"starlette", "uvicorn", "sse-starlette", "httpx", "pyjwt"} <= server
    course = {canonicalize_name(Requirement(r).name) for r in extras["course"]}
    assert "agentproto" in course, "the course extra includes the server extra"
    assert {"jupyterlab", "ipykernel", "ipywidgets", "matplotlib", "networkx", "numpy"} <= course
    assert "playwright" not in course, "the browser check is a test tool, not part of the course"


def test_make_lab_installs_the_course_extra_and_make_test_everything():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^COURSE_EXTRAS\s*:=\s*course$", makefile, re.M)
    assert re.search(r"^lab: \$\(COURSE_STAMP\)", makefile, re.M)
    assert re.search(r"^test: \$\(TEST_STAMP\)", makefile, re.M)
    test_extras = set(re.search(r"^TEST_EXTRAS\s*:=\s*([\w,]+)", makefile, re.M).group(1).split(","))
    assert test_extras == set(pyproject()["project"]["optional-dependencies"]) - {"server"}


def test_the_test_environment_is_installed_with_its_bytecode():
    """``make`` installs with ``uv pip install --compile-bytecode`` (pip compiles by default): where
    Python may not write .pyc files at import (PYTHONDONTWRITEBYTECODE, as in many CI images),
    every kernel, server and worker of the suite would otherwise compile what it imports anew."""
    import importlib.util

    for name in ("matplotlib.pyplot", "ipykernel.kernelbase", "jupyter_server.serverapp", "pydantic.main"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        assert Path(importlib.util.cache_from_source(spec.origin)).exists(), f"{name} has no bytecode"
