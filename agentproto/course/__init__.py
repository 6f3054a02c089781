"""The course layer: what notebooks use beyond the protocol packages, so their cells stay short.

This is the top of the package: nothing outside ``agentproto.course`` imports it, and it is the
only place that uses the ``course`` extra (ipywidgets, matplotlib, networkx, numpy).

The names below are the shared notebook framework, importable straight from
``agentproto.course``; each lives in (and is documented by) the module named:

=======================================================  =====================================
``check``, ``check_equal``, ``expect_error``,            exercise self-checks (``checks``)
``describe_error``, ``ExerciseFailed``
``Question``, ``Quiz``                                   end-of-notebook quizzes (``quiz``)
``answer_key``                                           answers kept closed until opened
                                                         (``reveal``)
``show_trace``, ``Trace``, ``IdNormalizer``              stable event tables (``trace``)
``Stepper``, ``measure_redraw``                          step-through widgets (``widgets``)
``use_course_style``, ``PALETTE``, ``STATE_COLORS``      plot defaults (``plots``)
``glossary``, ``glossary_markdown``                      the course glossary (``curriculum``)
``check_environment``                                    the setup check of notebook 00
                                                         (``doctor``)
``FakeClock``, ``IdFactory``                             the injected clock and ids
                                                         (:mod:`agentproto.clock`)
=======================================================  =====================================

A lesson's own widgets are imported from their module (``agentproto.course.trust``,
``agentproto.course.drill`` …). Names are loaded on first use, so ``agentproto.course.doctor``
— and ``agentproto doctor`` — work on an install without the ``course`` extra and can say
that it is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.course.checks import ExerciseFailed, check, check_equal, describe_error, expect_error
    from agentproto.course.curriculum import glossary, glossary_markdown
    from agentproto.course.doctor import check_environment
    from agentproto.course.plots import PALETTE, STATE_COLORS, use_course_style
    from agentproto.course.quiz import Question, Quiz
    from agentproto.course.reveal import answer_key
    from agentproto.course.trace import IdNormalizer, Trace, show_trace
    from agentproto.course.widgets import Stepper, measure_redraw

#: Where each public name lives.
_HOMES: dict[str, str] = {
    "FakeClock": "agentproto.clock",
    "IdFactory": "agentproto.clock",
    "ExerciseFailed": "agentproto.course.checks",
    "check": "agentproto.course.checks",
    "check_equal": "agentproto.course.checks",
    "describe_error": "agentproto.course.checks",
    "expect_error": "agentproto.course.checks",
    "glossary": "agentproto.course.curriculum",
    "glossary_markdown": "agentproto.course.curriculum",
    "check_environment": "agentproto.course.doctor",
    "PALETTE": "agentproto.course.plots",
    "STATE_COLORS": "agentproto.course.plots",
    "use_course_style": "agentproto.course.plots",
    "Question": "agentproto.course.quiz",
    "Quiz": "agentproto.course.quiz",
    "answer_key": "agentproto.course.reveal",
    "IdNormalizer": "agentproto.course.trace",
    "Trace": "agentproto.course.trace",
    "show_trace": "agentproto.course.trace",
    "Stepper": "agentproto.course.widgets",
    "measure_redraw": "agentproto.course.widgets",
}

__all__ = [
    "FakeClock",
    "IdFactory",
    "ExerciseFailed",
    "check",
    "check_equal",
    "describe_error",
    "expect_error",
    "glossary",
    "glossary_markdown",
    "check_environment",
    "PALETTE",
    "STATE_COLORS",
    "use_course_style",
    "Question",
    "Quiz",
    "answer_key",
    "IdNormalizer",
    "Trace",
    "show_trace",
    "Stepper",
    "measure_redraw",
]


def __getattr__(name: str) -> Any:
    """Import ``name`` from its home module on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
