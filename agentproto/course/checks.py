"""Self-checks for exercises, and a way to show an error on purpose.

``check`` and ``check_equal`` print a green tick or raise :class:`ExerciseFailed` (an
``AssertionError``) with a hint. An exercise nobody has attempted yet — the answer is still
``None``, ``...`` or an empty/``"TODO"`` placeholder — is not a failure: it raises
:class:`ExerciseNotSolved` (a subclass, so ``except ExerciseFailed`` still catches it), whose
message starts "not solved yet:" instead of "✗". ``expect_error`` runs something that *should* fail and prints
the error type, its rule id when it has one, and the message — the teaching moment — without a
traceback; if it does not fail, that is the surprise, and it raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentproto.errors import AgentProtoError

__all__ = [
    "ExerciseFailed",
    "ExerciseNotSolved",
    "is_unsolved",
    "require_answer",
    "check",
    "check_equal",
    "expect_error",
    "expect_error_async",
    "describe_error",
]


class ExerciseFailed(AgentProtoError, AssertionError):
    """An exercise self-check did not pass."""


class ExerciseNotSolved(ExerciseFailed):
    """The exercise has not been attempted yet: its answer is still the placeholder."""


_MISSING: Any = object()
_PLACEHOLDER_TEXT = frozenset({"", "...", "…", "todo", "your answer"})


def is_unsolved(value: Any) -> bool:
    """True for an answer that is still a placeholder: ``None``, ``...``, ``""``, ``"TODO"``…

    A container counts as unsolved only if it is non-empty and *every* value in it is a
    placeholder (``{"a": None, "b": None}``), so a half-filled answer is checked normally.
    """
    if value is None or value is Ellipsis:
        return True
    if isinstance(value, str):
        return value.strip().lower() in _PLACEHOLDER_TEXT
    if isinstance(value, dict):
        return bool(value) and all(is_unsolved(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return bool(value) and all(is_unsolved(v) for v in value)
    return False


def _not_solved(label: str, hint: str) -> ExerciseNotSolved:
    return ExerciseNotSolved(f"not solved yet: {label}" + (f" — hint: {hint}" if hint else ""))


def require_answer(
    answer: Any,
    label: str = "this exercise",
    *,
    placeholder: Any = _MISSING,
    empty_is_unsolved: bool = True,
    hint: str = "",
) -> None:
    """Raise :class:`ExerciseNotSolved` if ``answer`` is still the exercise's starting value.

    Unsolved means a placeholder (:func:`is_unsolved`), an empty container when
    ``empty_is_unsolved`` (for exercises whose right answer is never empty), or a value equal
    to ``placeholder`` — the exercise's template, e.g. the unchanged copy the learner was
    asked to edit. Call it first in an exercise's check function.
    """
    empty = empty_is_unsolved and isinstance(answer, (list, tuple, set, frozenset, dict)) and not answer
    same = placeholder is not _MISSING and answer == placeholder
    if is_unsolved(answer) or empty or same:
        raise _not_solved(label, hint)


def check(
    label: str, condition: bool | Callable[[], bool], hint: str = "", *, answer: Any = _MISSING
) -> None:
    """Pass if ``condition`` (or ``condition()``) is true; else raise with ``hint``.

    Pass the learner's ``answer`` too and a placeholder answer is reported as "not solved
    yet" (:class:`ExerciseNotSolved`) rather than as a failure; ``condition`` is then not
    evaluated.
    """
    if answer is not _MISSING and is_unsolved(answer):
        raise _not_solved(label, hint)
    ok = condition() if callable(condition) else condition
    if not ok:
        raise ExerciseFailed(f"✗ {label}" + (f" — hint: {hint}" if hint else ""))
    print(f"✓ {label}")


def check_equal(label: str, got: Any, expected: Any, hint: str = "") -> None:
    """Pass if ``got == expected``; the failure message shows both.

    If ``got`` is still a placeholder (see :func:`is_unsolved`) and the expected value is not,
    the exercise has not been attempted: :class:`ExerciseNotSolved`, "not solved yet: …".
    """
    if got != expected:
        if is_unsolved(got) and not is_unsolved(expected):
            raise _not_solved(label, hint)
        extra = f" — hint: {hint}" if hint else ""
        raise ExerciseFailed(f"✗ {label}: expected {expected!r}, got {got!r}{extra}")
    print(f"✓ {label}")


def describe_error(exc: BaseException) -> str:
    """``TypeName [rule]: message`` — the one line a learner should read."""
    rule = getattr(exc, "rule", None) or getattr(exc, "code", None)
    tag = f" [{rule}]" if rule not in (None, "") else ""
    return f"{type(exc).__name__}{tag}: {exc}"


def expect_error(
    fn: Callable[..., Any],
    *args: Any,
    error: type[BaseException] | tuple[type[BaseException], ...] = Exception,
    match: str | None = None,
    quiet: bool = False,
    **kwargs: Any,
) -> BaseException:
    """Call ``fn(*args, **kwargs)``, which must raise ``error``; print and return the error.

    Raises :class:`ExerciseFailed` if nothing was raised or ``match`` is not in the message.
    """
    try:
        fn(*args, **kwargs)
    except error as exc:  # the expected failure
        return _raised_as_expected(exc, match, quiet)
    raise _returned_normally(fn, error)


async def expect_error_async(
    fn: Callable[..., Any],
    *args: Any,
    error: type[BaseException] | tuple[type[BaseException], ...] = Exception,
    match: str | None = None,
    quiet: bool = False,
    **kwargs: Any,
) -> BaseException:
    """:func:`expect_error` for a coroutine function (or one returning an async iterator,
    which is read to the end): prints ``✗ Type [rule]: message``."""
    try:
        result = fn(*args, **kwargs)
        if hasattr(result, "__aiter__"):
            async for _ in result:
                pass
        else:
            await result
    except error as exc:  # the expected failure
        return _raised_as_expected(exc, match, quiet)
    raise _returned_normally(fn, error)


def _raised_as_expected(exc: BaseException, match: str | None, quiet: bool) -> BaseException:
    if match is not None and match not in str(exc):
        raise ExerciseFailed(f"error raised, but its message lacks {match!r}: {exc}") from exc
    if not quiet:
        print("✗ " + describe_error(exc))
    return exc


def _returned_normally(fn: Callable[..., Any], error: Any) -> ExerciseFailed:
    name = getattr(fn, "__name__", repr(fn))
    return ExerciseFailed(f"expected {name}(…) to raise {error}, but it returned normally")
