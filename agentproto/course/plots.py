"""Plot defaults shared by every notebook, so figures look alike and render the same way."""

from __future__ import annotations

import matplotlib as mpl
from cycler import cycler

__all__ = ["use_course_style", "PALETTE", "STATE_COLORS"]

#: A colour-blind-friendly palette (Okabe–Ito) by role.
PALETTE = {
    "primary": "#0072B2",
    "secondary": "#E69F00",
    "good": "#009E73",
    "bad": "#D55E00",
    "warn": "#F0E442",
    "muted": "#999999",
    "accent": "#CC79A7",
    "sky": "#56B4E9",
}

#: Colours for A2A task states (keys are the short names, e.g. ``input-required``).
STATE_COLORS = {
    "submitted": PALETTE["muted"],
    "working": PALETTE["primary"],
    "input-required": PALETTE["secondary"],
    "auth-required": PALETTE["accent"],
    "completed": PALETTE["good"],
    "failed": PALETTE["bad"],
    "canceled": "#555555",
    "rejected": "#8B0000",
}


def use_course_style() -> None:
    """Apply the course's matplotlib defaults (call once at the top of a notebook)."""
    mpl.rcParams.update(
        {
            "figure.figsize": (8.0, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titleweight": "bold",
            "axes.prop_cycle": cycler(color=list(PALETTE.values())),
            "font.size": 10,
            "legend.frameon": False,
            "svg.hashsalt": "agentproto",  # stable SVG ids
        }
    )
