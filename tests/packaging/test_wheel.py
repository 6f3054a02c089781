"""The wheel stands alone: built from this tree, installed with no extras into a clean venv
outside the checkout, it is small, lints a stream, and says which extra a missing command needs.

This is the install an engineer who only wants `agentproto lint` gets (see envs.py for how the
venvs are built and measured).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.envs import build_wheel, install, installed, run, site_packages, size_mb

#: The issue's bound for the base install's site-packages (pip itself included).
MAX_BASE_SITE_PACKAGES_MB = 60

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def base_env(wheel, tmp_path_factory) -> Path:
    return install(tmp_path_factory.mktemp("base-venv"), str(wheel))


def test_the_wheel_carries_the_files_the_package_reads_and_nothing_of_the_checkout(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "agentproto/data/course/question_bank.json",
        "agentproto/data/course/glossary.csv",
        "agentproto/data/scenarios/deadlock_travel.json",
        "agentproto/data/demo/orders.json",
        "agentproto/py.typed",
    ):
        assert needed in names, f"{needed} is missing from the wheel"
    assert not [n for n in names if n.startswith(("tests/", "notebooks/", "data/", "benchmarks/"))]


def test_the_base_install_has_no_course_or_server_libraries_and_is_small(base_env):
    names = installed(base_env)
    assert {"pydantic", "jsonpatch", "jsonschema", "agentproto"} <= names
    for heavy in ("jupyterlab", "ipywidgets", "matplotlib", "numpy", "starlette", "httpx", "playwright"):
        assert heavy not in names, f"{heavy} came with the base install"
    size = size_mb(site_packages(base_env))
    print(f"base install: {size:.1f} MB of site-packages")
    assert size <= MAX_BASE_SITE_PACKAGES_MB, f"base install is {size:.1f} MB"


def test_agentproto_lint_works_from_the_base_install_outside_the_checkout(base_env, tmp_path):
    stream = tmp_path / "run.jsonl"
    stream.write_text(
        '{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n'
        '{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n',
        encoding="utf-8",
    )
    result = run([str(base_env / "bin" / "agentproto"), "lint", "--json", str(stream)], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["verdict"] == "conformant"
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}\n', encoding="utf-8")
    result = run([str(base_env / "bin" / "agentproto"), "lint", str(broken)], cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr


def test_the_a2a_core_and_the_packaged_data_load_from_the_base_install(base_env, tmp_path):
    code = (
        "from agentproto.a2a import TaskMachine, TaskState\n"
        "from agentproto.clock import FakeClock\n"
        "from agentproto.resources import scenario\n"
        "m = TaskMachine('task-1', clock=FakeClock())\n"
        "print(m.state, len(scenario('deadlock_travel')['tasks']) > 0)\n"
    )
    result = run([str(base_env / "bin" / "python"), "-c", code], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_command_that_needs_an_extra_says_which_one(base_env, tmp_path):
    result = run([str(base_env / "bin" / "agentproto"), "serve", "--help"], cwd=tmp_path)
    assert result.returncode == 2
    assert "agentproto[server]" in result.stderr
