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

from typing import TYPE_CHECKING

from agentproto._lazy import lazy_exports

if TYPE_CHECKING:  # each public name and its home module; loaded on first use
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.course.checks import ExerciseFailed, check, check_equal, describe_error, expect_error
    from agentproto.course.curriculum import glossary, glossary_markdown
    from agentproto.course.doctor import check_environment
    from agentproto.course.plots import PALETTE, STATE_COLORS, use_course_style
    from agentproto.course.quiz import Question, Quiz
    from agentproto.course.reveal import answer_key
    from agentproto.course.trace import IdNormalizer, Trace, show_trace
    from agentproto.course.widgets import Stepper, measure_redraw

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


#: ``__getattr__`` serves each name from its home, read from the ``TYPE_CHECKING`` imports above.
__getattr__, __dir__, _HOMES = lazy_exports(globals())
