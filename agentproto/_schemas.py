"""JSON Schema validation, without the format checkers nobody asked for.

The kit validates three things against JSON Schema: an interrupt's ``responseSchema``
(:mod:`agentproto.agui.interrupts`), a UI intent's props (:mod:`agentproto.agui.ui_intent`) and
a demo tool's ``inputSchema`` (:mod:`agentproto.demo.tools`). None of them asserts ``format``:
JSON Schema 2020-12 treats ``format`` as an annotation unless a validator is given a format
checker, and the kit never gives one.

Importing :mod:`jsonschema` nevertheless builds every format checker whose optional library is
installed. One of them, ``rfc3987_syntax`` (the ``iri`` formats), compiles about 38 ``lark``
grammars at import: 1.5 s on a quiet machine and 5 s or more on a busy one, wherever JupyterLab
is installed, since Jupyter asks for ``jsonschema[format-nongpl]``. :func:`jsonschema` imports
the library with that one module held back, so ``agentproto serve`` answers within a second and
the first AG-UI run does not stall. Held back means only that the ``iri`` and
``iri-reference`` checkers are missing from :class:`jsonschema.FormatChecker` in a process whose
first import of :mod:`jsonschema` came through here; the module itself stays importable.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["jsonschema", "HELD_BACK"]

#: Optional format-checker libraries :func:`jsonschema` keeps out of the import.
HELD_BACK = ("rfc3987_syntax",)


def jsonschema() -> ModuleType:
    """The :mod:`jsonschema` module, imported once without the checkers in :data:`HELD_BACK`."""
    loaded = sys.modules.get("jsonschema")
    if loaded is not None:
        return loaded
    held = [name for name in HELD_BACK if name not in sys.modules]
    for name in held:
        sys.modules[name] = None  # type: ignore[assignment]  # import now raises ImportError
    try:
        module = importlib.import_module("jsonschema")
        importlib.import_module("jsonschema.exceptions")
    finally:
        for name in held:
            if sys.modules.get(name) is None:
                del sys.modules[name]
    return module
