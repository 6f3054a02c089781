"""Notebook helpers: trace tables, quizzes, exercise self-checks, steppers and plot defaults.

Everything a notebook needs beyond the protocol packages lives here, so notebook cells stay
short and never re-implement the package.
"""

from agentproto.clock import FakeClock, IdFactory
from agentproto.course.checks import ExerciseFailed, check, check_equal, describe_error, expect_error
from agentproto.course.doctor import check_environment
from agentproto.course.plots import PALETTE, STATE_COLORS, use_course_style
from agentproto.course.quiz import Question, Quiz
from agentproto.course.trace import IdNormalizer, Trace, show_trace
from agentproto.course.widgets import Stepper, measure_redraw

__all__ = [
    "FakeClock", "IdFactory",
    "ExerciseFailed", "check", "check_equal", "describe_error", "expect_error",
    "check_environment",
    "PALETTE", "STATE_COLORS", "use_course_style",
    "Question", "Quiz",
    "IdNormalizer", "Trace", "show_trace",
    "Stepper", "measure_redraw",
]
