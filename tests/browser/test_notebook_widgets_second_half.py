"""The browser check for the second half of the course (see test_notebook_widgets.py).

Same checks with its own JupyterLab, Chromium and page (module-scoped fixtures in conftest.py), so
that the two halves run on two xdist workers at once.
"""

from __future__ import annotations

import pytest

from tests.browser.test_notebook_widgets import NOTEBOOKS, check_notebook_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECOND_HALF = NOTEBOOKS[len(NOTEBOOKS) // 2 :]


@pytest.mark.parametrize("name", SECOND_HALF)
def test_notebook_runs_in_jupyterlab_with_current_outputs_and_live_widgets(lab, lab_page, name, tmp_path):
    check_notebook_in_browser(lab, lab_page, name, tmp_path)
