"""Shared test configuration.

Plots in tests use the non-interactive Agg backend. It is selected with ``matplotlib.use``
rather than the ``MPLBACKEND`` environment variable, which notebook kernels started by nbval
would inherit (and then show no figures).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
