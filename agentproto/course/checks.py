"""Self-checks for exercises, and a way to show an error on purpose.

``check`` and ``check_equal`` print a green tick or raise :class:`ExerciseFailed` (an
``AssertionError``) with a hint. ``expect_error`` runs something that *should* fail and prints
the error type, its rule id when it has one, and the message — the teaching moment — without a
traceback; if it does not fail, that is the surprise, and it raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["ExerciseFailed", "check", "check_equal", "expect_error", "describe_error"]


class ExerciseFailed(AssertionError):
    """An exercise self-check did not pass."""


def check(label: str, condition: bool | Callable[[], bool], hint: str = "") -> None:
    """Pass if ``condition`` (or ``condition()``) is true; else raise with ``hint``."""
    ok = condition() if callable(condition) else condition
    if not ok:
        raise ExerciseFailed(f"✗ {label}" + (f" — hint: {hint}" if hint else ""))
    print(f"✓ {label}")


def check_equal(label: str, got: Any, expected: Any, hint: str = "") -> None:
    """Pass if ``got == expected``; the failure message shows both."""
    if got != expected:
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
        if match is not None and match not in str(exc):
            raise ExerciseFailed(f"error raised, but its message lacks {match!r}: {exc}") from exc
        if not quiet:
            print("✗ " + describe_error(exc))
        return exc
    name = getattr(fn, "__name__", repr(fn))
    raise ExerciseFailed(f"expected {name}(…) to raise {error}, but it returned normally")
