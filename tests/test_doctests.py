"""Every example in agentproto's docstrings runs, in every module that has one.

The modules are found by their source (a ``>>>`` line), so a new example is tested without
being listed here. A module whose optional dependencies are not installed (the course layer
without the ``course`` extra) is skipped, not failed.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agentproto"


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " in path.read_text(encoding="utf-8"):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_the_examples_are_found_in_every_subpackage():
    assert len(MODULES) >= 26
    subpackages = {m.split(".")[1] for m in MODULES if m.count(".") > 1}
    assert subpackages >= {"a2a", "agui", "orchestration", "security"}


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_run(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if (missing.name or "").startswith("agentproto"):
            raise
        pytest.skip(f"{name} needs {missing.name}, which is not installed")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} has a '>>> ' line but no docstring example that doctest finds"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
