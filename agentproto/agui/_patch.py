"""JSON Patch (RFC 6902) for AG-UI state: checking, copying and applying patches atomically in place.

A patch given as data is checked structurally (:func:`_check_ops`), JSON values are copied
fast (:func:`copy_json`), and :func:`_apply_in_place` applies a patch to a document in place
and atomically: a fast engine with its own undo journal takes the ``add``/``replace``/
``remove`` operations streams are made of, and hands everything else — and every failure, so
every message a warning quotes — to ``jsonpatch``, imported only on first need.
:func:`apply_patch` is the copying form for callers; :class:`~agentproto.agui.state.StateReducer`
is the consumer that folds ``STATE_DELTA`` and ``ACTIVITY_DELTA`` events with it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

from agentproto.agui.errors import PatchError
from agentproto.agui.types import AddOperation, RemoveOperation, ReplaceOperation

__all__ = ["apply_patch", "copy_json"]

_VALID_OPS = {
    "add": ("path", "value"),
    "remove": ("path",),
    "replace": ("path", "value"),
    "move": ("from", "path"),
    "copy": ("from", "path"),
    "test": ("path", "value"),
}


_CONTAINERS = (dict, list)


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars) — several times faster than deepcopy.

    Scalars are immutable and shared as they are, so only containers recurse.
    """
    if type(value) is dict:
        return {k: copy_json(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if type(value) is list:
        return [copy_json(v) if type(v) in _CONTAINERS else v for v in value]
    return value


# jsonpatch (and jsonpointer, difflib under it) is imported on first need — a patch the fast
# engine hands over, a failure, a guarded snapshot — not at import: `agentproto lint` of a
# stream whose patches all apply never loads it.
_jsonpatch: Any = None
_CachedPointer: Any = None
_PATCH_ERRORS: tuple[type[BaseException], ...] = ()


def _load_jsonpatch() -> Any:
    """Import jsonpatch once; define the pointer class and the tolerated patch errors."""
    global _jsonpatch, _CachedPointer, _PATCH_ERRORS
    if _jsonpatch is None:
        import jsonpatch
        import jsonpointer

        class CachedPointer(jsonpointer.JsonPointer):
            """A JSON Pointer that parses each distinct path string once (streams repeat)."""

            _parsed: dict[str, list[str]] = {}

            def __init__(self, pointer: str) -> None:
                parts = self._parsed.get(pointer)
                if parts is None:
                    super().__init__(pointer)
                    if len(self._parsed) < 4096:
                        self._parsed[pointer] = list(self.parts)
                else:
                    self.parts = list(parts)

        _CachedPointer = CachedPointer
        _PATCH_ERRORS = (
            jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException,
            KeyError,
            IndexError,
            TypeError,
            ValueError,
        )
        _jsonpatch = jsonpatch
    return _jsonpatch


def _is_patch_error(exc: BaseException) -> bool:
    """A well-formed patch that does not apply (the reducer warns and keeps the state)."""
    _load_jsonpatch()
    return isinstance(exc, _PATCH_ERRORS)


_ABSENT = object()


def _op_dict(op: Any) -> dict[str, Any]:
    """A JSON Patch operation (model or dict) as the plain dict jsonpatch expects."""
    if isinstance(op, dict):
        return op
    name = getattr(op, "op", _ABSENT)
    if name is _ABSENT:  # not an operation: returned as it is, for _check_ops to report
        return op  # type: ignore[no-any-return]
    d = {"op": name, "path": op.path}
    if name in ("add", "replace", "test"):
        d["value"] = op.value
    elif name in ("move", "copy"):
        d["from"] = op.from_
    return d


def _check_ops(ops: Any, where: str) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Structural check for raw patches given as data (events are checked by the parser)."""
    if not isinstance(ops, list):
        raise PatchError(
            f"a JSON Patch must be an array, got {type(ops).__name__}", path=where, reason="not an array"
        )
    clean: list[dict[str, Any]] = []
    dropped: list[tuple[str, str]] = []
    for i, op in enumerate(ops):
        op = _op_dict(op)
        if not isinstance(op, dict):
            raise PatchError(
                f"patch operation {i} is not an object", path=f"{where}/{i}", reason="not an object"
            )
        name = op.get("op")
        if not isinstance(name, str):
            raise PatchError(
                f"patch operation {i} has no string 'op'", path=f"{where}/{i}/op", reason="missing op"
            )
        members = _VALID_OPS.get(name)
        if members is None:
            dropped.append((f"{where}/{i}", f"unrecognised JSON Patch op {name!r} dropped"))
            continue
        for member in members:
            if member not in op:
                raise PatchError(
                    f"patch operation {i} ({name}) lacks {member!r}",
                    path=f"{where}/{i}/{member}",
                    reason="missing member",
                )
            if member in ("path", "from") and not isinstance(op[member], str):
                raise PatchError(
                    f"patch operation {i} ({name}): {member!r} must be a string",
                    path=f"{where}/{i}/{member}",
                    reason="not a string",
                )
        clean.append(op)
    return clean, dropped


def apply_patch(document: Any, ops: Iterable[Any]) -> Any:
    """Apply a JSON Patch and return the new document; *document* is never mutated.

    Raises :class:`PatchError` for a malformed patch and ``jsonpatch``/``jsonpointer``
    exceptions for a well-formed one that does not apply. Unknown ``op`` elements are dropped
    silently here; :class:`StateReducer` warns about them.
    """
    clean, _ = _check_ops(
        ops if isinstance(ops, list) else ops if isinstance(ops, (str, bytes, dict)) else list(ops), ""
    )
    return _apply_in_place(copy_json(document), clean)


def _apply_in_place(document: Any, ops: list[Any]) -> Any:
    """Apply *ops* (operation models or dicts) to *document* in place, atomically.

    Returns the document (a new object only when the root itself was replaced). Inserted
    values are deep-copied, so the event's patch is never aliased into (or later mutated
    through) the document. On failure the document is restored exactly and jsonpatch's
    exception propagates.

    Two engines, one behaviour. :func:`_fast_apply` handles what streams are made of —
    ``add``/``replace``/``remove`` on plain dicts and lists along paths that resolve — with
    its own undo journal and no per-operation objects. Anything else (``move``, ``copy``,
    ``test``, the root, a path that does not resolve, a bad index, another container type)
    makes it undo what it did and hand the *whole* patch, on the untouched document, to
    jsonpatch: every failure, and every message a warning quotes, is jsonpatch's own.
    """
    result = _fast_apply(document, ops)
    if result is not _FALLBACK:
        return result
    plain = [_op_dict(op) for op in ops]
    jsonpatch = _load_jsonpatch()
    if len(plain) == 1 and plain[0]["op"] != "move":
        # jsonpatch's atomic mode undoes the operations that preceded a failing one. A lone
        # operation that changes the document in one final step, after all its checks (all
        # but move, which removes and then adds), has nothing to undo: it is applied as
        # jsonpatch's operation object alone, without the patch and journal around it.
        op = plain[0]
        return jsonpatch.JsonPatch.operations[op["op"]](op, pointer_cls=_CachedPointer).apply(document)
    return jsonpatch.JsonPatch(plain, pointer_cls=_CachedPointer).apply(document, in_place=True, atomic=True)


# -- the fast engine ------------------------------------------------------------------------

_FALLBACK: Any = object()  # "let jsonpatch do it" (the document is untouched)
#: One journal entry: (container, key or index, old value or _FALLBACK, list shift?).
_Step = tuple[Any, Any, Any, bool]
_ADD, _REPLACE, _REMOVE = 1, 2, 3
_KIND_BY_NAME = {"add": _ADD, "replace": _REPLACE, "remove": _REMOVE}
_KIND_BY_CLASS = {AddOperation: _ADD, ReplaceOperation: _REPLACE, RemoveOperation: _REMOVE}
_ATOMS = frozenset({str, int, float, bool, type(None)})
_DIGITS = frozenset("0123456789")
_POINTER_ESCAPE_ERROR = re.compile("(~[^01]|~$)")  # jsonpointer rejects these escapes
#: path → its unescaped parts, or None when the fast engine leaves the path to jsonpatch
#: (the root, a pointer jsonpointer would reject). Streams repeat a few paths endlessly.
_PARTS: dict[str, tuple[str, ...] | None] = {}


def _parts(path: str) -> tuple[str, ...] | None:
    parts: tuple[str, ...] | None = _PARTS.get(path, _FALLBACK)
    if parts is _FALLBACK:
        if not path.startswith("/") or _POINTER_ESCAPE_ERROR.search(path):
            parts = None
        else:
            parts = tuple(
                p.replace("~1", "/").replace("~0", "~") if "~" in p else p for p in path[1:].split("/")
            )
        if len(_PARTS) < 4096:
            _PARTS[path] = parts
    return parts


def _index(part: str) -> int | None:
    """An RFC 6901 array index (``0`` or no leading zero, digits only), else ``None``."""
    if part and (part == "0" or part[0] != "0") and _DIGITS.issuperset(part):
        return int(part)
    return None


def _copy_value(value: Any) -> Any:
    """A deep copy, like ``copy.deepcopy`` (which jsonpatch uses), fast for JSON data."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is dict:
        return {k: _copy_value(v) for k, v in value.items()}
    if t is list:
        return [_copy_value(v) for v in value]
    return copy.deepcopy(value)


def _fast_apply(document: Any, ops: list[Any]) -> Any:
    """Apply *ops* in place when every one is a plain, resolvable add/replace/remove.

    Returns the document, or :data:`_FALLBACK` — with the document restored exactly — as
    soon as an operation is anything else. What it does for the operations it takes is what
    jsonpatch does (RFC 6902 with jsonpointer's index rules); the tests compare the two.
    """
    undo: list[_Step] | None = None  # the journal: created by the first change
    orders: dict[int, tuple[dict[Any, Any], list[Any]]] | None = None  # dicts that lost a key: old order
    try:
        for op in ops:
            kind = _KIND_BY_CLASS.get(type(op))
            if kind is not None:
                path = op.path
                value = op.value if kind != _REMOVE else None
            elif type(op) is dict:
                kind = _KIND_BY_NAME.get(op.get("op"))  # type: ignore[arg-type]
                path = op.get("path")
                if kind is None or type(path) is not str or (kind != _REMOVE and "value" not in op):
                    raise _Bail
                value = op["value"] if kind != _REMOVE else None
            else:
                raise _Bail
            parts = _parts(path)
            if not parts:  # None (left to jsonpatch) or () (the root)
                raise _Bail
            target = document
            for i in range(len(parts) - 1):
                part = parts[i]
                t = type(target)
                if t is dict:
                    if part not in target:
                        raise _Bail
                    target = target[part]
                elif t is list:
                    n = _index(part)
                    if n is None or n >= len(target):
                        raise _Bail
                    target = target[n]
                else:
                    raise _Bail
            key = parts[-1]
            t = type(target)
            if undo is None:
                undo = []
            if t is dict:
                if kind == _ADD:
                    if key in target:
                        undo.append((target, key, target[key], False))
                    else:
                        undo.append((target, key, _FALLBACK, False))
                    target[key] = _copy_value(value)
                elif key not in target:
                    raise _Bail
                elif kind == _REPLACE:
                    undo.append((target, key, target[key], False))
                    target[key] = _copy_value(value)
                else:  # remove
                    if orders is None:
                        orders = {}
                    if id(target) not in orders:
                        orders[id(target)] = (target, list(target))
                    undo.append((target, key, target.pop(key), False))
            elif t is list:
                if kind == _ADD and key == "-":
                    target.append(_copy_value(value))
                    undo.append((target, len(target) - 1, _FALLBACK, True))
                    continue
                n = _index(key)
                if n is None:
                    raise _Bail
                if kind == _ADD:
                    if n > len(target):
                        raise _Bail
                    target.insert(n, _copy_value(value))
                    undo.append((target, n, _FALLBACK, True))
                elif n >= len(target):
                    raise _Bail
                elif kind == _REPLACE:
                    undo.append((target, n, target[n], False))
                    target[n] = _copy_value(value)
                else:  # remove
                    undo.append((target, n, target.pop(n), True))
            else:
                raise _Bail
    except _Bail:
        if undo:
            _rollback(undo, orders)
        return _FALLBACK
    except BaseException:
        if undo:
            _rollback(undo, orders)
        raise
    return document


class _Bail(Exception):
    """Internal: the fast engine hands the patch over to jsonpatch."""


def _rollback(undo: list[_Step], orders: dict[int, tuple[dict[Any, Any], list[Any]]] | None) -> None:
    """Undo the journal, newest change first; restore the key order of dicts that lost keys.

    An entry is ``(container, key, old, shifted)``: ``old`` is the previous value or
    :data:`_FALLBACK` for "was absent"; ``shifted`` marks a list insertion (undone by
    deleting) or a list removal (undone by inserting ``old`` back).
    """
    for container, key, old, shifted in reversed(undo):
        if shifted:
            if old is _FALLBACK:
                del container[key]
            else:
                container.insert(key, old)
        elif old is _FALLBACK:
            del container[key]
        else:
            container[key] = old
    for mapping, keys in (orders or {}).values():
        if list(mapping) != keys:  # restored members went to the end: rebuild the order
            items = [(k, mapping[k]) for k in keys if k in mapping]
            mapping.clear()
            mapping.update(items)
