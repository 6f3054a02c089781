"""Shared test configuration: headless plotting, no stray files."""

from __future__ import annotations

import os

os.environ.setdefault("MPLBACKEND", "Agg")
