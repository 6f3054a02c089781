"""The package's shape: one idea per module, no two public classes with one name, and data
files inside the package."""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agentproto"
#: "No library module runs past about 800 lines", counted as ruff formats them (one argument a
#: line where a call is long). The course's widget modules are not the library.
MAX_LIBRARY_LINES = 850


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_two_public_classes_in_the_package_share_a_name():
    where: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(PACKAGE.parent)))
    clashes = {name: places for name, places in where.items() if len(places) > 1}
    assert not clashes, f"public class names defined more than once: {clashes}"


def test_no_library_module_runs_past_about_800_lines():
    long = {}
    for path in _modules():
        if "course" in path.relative_to(PACKAGE).parts:
            continue
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_LIBRARY_LINES:
            long[str(path.relative_to(PACKAGE.parent))] = lines
    assert not long, f"modules to split by idea: {long}"


def test_nothing_in_the_package_finds_files_relative_to_a_checkout():
    offenders = []
    for path in _modules():
        if path.relative_to(PACKAGE).as_posix() == "course/launcher.py":
            continue  # `agentproto lab` looks for a clone's notebooks/ before the packaged copy
        text = path.read_text(encoding="utf-8")
        if ".parents[" in text or '"../data' in text or "'../data" in text:
            offenders.append(str(path.relative_to(PACKAGE.parent)))
    assert not offenders, f"read packaged files with agentproto.resources instead: {offenders}"


#: The adapter modules may do I/O; their names say so (issue "Library and course apart").
ADAPTER_NAMES = (
    "server*",
    "client*",
    "push*",
    "*store*",
    "transport*",
    "runner*",
    "service*",
    "agents*",
    "cli*",
    "app*",
    "rest*",
    "grpc*",
)


def test_every_core_module_of_agui_and_a2a_is_under_the_sans_io_contract():
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["name"].startswith("The protocol cores are sans-I/O")
    )
    listed = set(contract["source_modules"])
    missing = []
    for package in ("agui", "a2a"):
        for path in sorted((PACKAGE / package).glob("*.py")):
            name = path.stem
            public_name = name.removeprefix("_")  # a private module is named by what it does too
            if name == "__init__" or any(fnmatch.fnmatch(public_name, pattern) for pattern in ADAPTER_NAMES):
                continue
            if f"agentproto.{package}.{name}" not in listed:
                missing.append(f"agentproto.{package}.{name}")
    assert not missing, f"core modules the sans-I/O contract does not check: {missing}"
