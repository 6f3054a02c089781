"""Lazy package attributes (PEP 562), declared once: by the package's ``if TYPE_CHECKING:`` imports.

A package whose names should load on first use (so that ``import agentproto.a2a`` does not pull
in httpx or Starlette) writes its public names as ordinary imports under ``if TYPE_CHECKING:`` —
type checkers and IDEs read them, and so does this helper — and ends with::

    __getattr__, __dir__, _EXPORTS = lazy_exports(globals())

:func:`lazy_exports` reads those imports from the package's own source (the way
``lazy_loader.attach_stub`` reads a stub file), and returns the module ``__getattr__`` that
imports a name's home module the first time the name is asked for, the ``__dir__`` that lists
``__all__`` beside what is loaded, and the ``name → home module`` map for tests. A name that is
imported lazily but left out of ``__all__`` still works — that is how a package keeps an old
name importable without advertising it.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports", "type_checking_imports"]


def type_checking_imports(source: str) -> dict[str, tuple[str, str]]:
    """``{bound name: (module, attribute)}`` for every ``from M import a [as b]`` under a
    top-level ``if TYPE_CHECKING:`` of ``source``."""
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module and statement.level == 0:
                for alias in statement.names:
                    found[alias.asname or alias.name] = (statement.module, alias.name)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def lazy_exports(
    namespace: dict[str, Any],
) -> tuple[Callable[[str], Any], Callable[[], list[str]], dict[str, str]]:
    """``(__getattr__, __dir__, name → home module)`` for the package whose ``globals()`` is
    ``namespace``; the names are those its ``if TYPE_CHECKING:`` block imports."""
    package = str(namespace["__name__"])
    with open(namespace["__file__"], encoding="utf-8") as source:
        imports = type_checking_imports(source.read())

    def __getattr__(name: str) -> Any:
        home = imports.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home[0]), home[1])
        namespace[name] = value  # the next lookup does not come here
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __getattr__, __dir__, {name: module for name, (module, _) in imports.items()}
