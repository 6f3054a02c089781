"""The Voilà check for the second half of the course (see test_voila_first_half.py).

Same checks with its own Voilà and Chromium (module-scoped fixtures), so that the two halves
run on two xdist workers at once.
"""

from __future__ import annotations

import pytest

from tests.browser.test_voila_first_half import NOTEBOOKS, check_voila_page, start_voila

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECOND_HALF = NOTEBOOKS[len(NOTEBOOKS) // 2 :]


@pytest.fixture(scope="module")
def voila(tmp_path_factory, chromium_path):
    yield from start_voila(tmp_path_factory.mktemp("voila"))


@pytest.mark.parametrize("name", SECOND_HALF)
def test_notebook_presents_in_voila_with_live_widgets_and_closed_answer_keys(voila, browser, name, tmp_path):
    check_voila_page(voila, browser, name, tmp_path)
