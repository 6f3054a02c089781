"""The packages' public surface: ``__all__`` resolves, lazy names load once, and every name the
notebooks and the course layer import from agentproto still exists."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentproto import _lazy

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = [
    "agentproto",
    "agentproto.agui",
    "agentproto.a2a",
    "agentproto.orchestration",
    "agentproto.security",
    "agentproto.course",
    "agentproto.demo",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_resolves_and_is_listed_once(package: str) -> None:
    module = importlib.import_module(package)
    names = list(module.__all__)
    assert len(names) == len(set(names))
    assert [n for n in names if not hasattr(module, n)] == []


def _imports_from_agentproto(source: str) -> list[tuple[str, str]]:
    """``(module, name)`` for each ``from agentproto… import name`` in ``source``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agentproto")
        for alias in node.names
        if alias.name != "*"
    ]


def _notebook_sources() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                text = "".join(cell["source"])
                code = "\n".join(
                    line for line in text.splitlines() if not line.lstrip().startswith(("%", "!"))
                )
                out.append((path.name, code))
    return out


def _course_sources() -> list[tuple[str, str]]:
    return [
        (p.name, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "agentproto" / "course").glob("*.py"))
    ]


def test_every_name_the_notebooks_and_the_course_import_exists() -> None:
    missing = []
    for where, source in [*_notebook_sources(), *_course_sources()]:
        for module_name, name in _imports_from_agentproto(source):
            module = importlib.import_module(module_name)
            if not hasattr(module, name):
                try:
                    importlib.import_module(f"{module_name}.{name}")  # a submodule
                except ImportError:
                    missing.append(f"{where}: from {module_name} import {name}")
    assert missing == []


def test_the_interrupt_api_and_its_errors_are_exported_from_agui() -> None:
    import agentproto.agui as agui
    from agentproto.agui import interrupts

    for name in (
        "validate_resume",
        "build_resume",
        "tool_approval_interrupt",
        "ResumeError",
        "InterruptSpecError",
    ):
        assert name in agui.__all__
        assert getattr(agui, name) is getattr(interrupts, name)
    assert issubclass(agui.ResumeError, agui.AGUIError)


def test_names_kept_for_old_code_are_importable_but_not_advertised() -> None:
    import agentproto.agui as agui

    assert agui.Warning_ is agui.PipelineWarning
    assert "Warning_" not in agui.__all__


def test_the_lazy_helper_reads_the_type_checking_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import typing\n"
        "if TYPE_CHECKING:\n"
        "    from a.b import C, d as e\n"
        "if typing.TYPE_CHECKING:\n"
        "    from f import G\n"
        "from h import I\n"
    )
    assert _lazy.type_checking_imports(source) == {"C": ("a.b", "C"), "e": ("a.b", "d"), "G": ("f", "G")}


def test_a_lazy_name_is_loaded_once_and_an_unknown_one_is_an_attribute_error() -> None:
    code = (
        "import sys, agentproto.a2a as a2a\n"
        "assert 'TaskMachine' not in vars(a2a) and 'agentproto.a2a.machine' not in sys.modules\n"
        "m = a2a.TaskMachine\n"
        "assert vars(a2a)['TaskMachine'] is m\n"
        "try:\n"
        "    a2a.views\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "module 'agentproto.a2a' has no attribute 'views'"


@pytest.mark.parametrize(
    "package", ["agentproto.a2a", "agentproto.agui", "agentproto.course", "agentproto.demo"]
)
def test_lazy_packages_use_the_one_shared_helper(package: str) -> None:
    source = (ROOT / package.replace(".", "/") / "__init__.py").read_text(encoding="utf-8")
    assert "lazy_exports(globals())" in source
    assert "importlib.import_module" not in source


@pytest.mark.parametrize(
    "module", ["agentproto.errors", "agentproto.agui.errors", "agentproto.agui.sse", "agentproto.a2a.machine"]
)
def test_the_examples_in_the_docstrings_run(module: str) -> None:
    import doctest

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
