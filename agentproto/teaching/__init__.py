"""Notebook helpers: trace tables, quizzes, exercise self-checks and plot defaults."""
