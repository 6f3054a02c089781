"""Notebook 14's labs can be driven from code exactly as a learner drives them; its static figures."""

from __future__ import annotations

from matplotlib.figure import Figure

from agentproto.course.dedup import CacheLab, IdempotencyLab, plot_cache_ttl_tradeoff, plot_side_effects
from agentproto.orchestration.dedup import FaultRates, run_dedup, ttl_sweep


def line(summary: str, label: str) -> str:
    return next(ln for ln in summary.splitlines() if ln.startswith(label))


def test_no_faults_means_no_duplicates_in_any_design():
    lab = IdempotencyLab(intents=40, auto=False)
    for slider in (lab.lost_response, lab.double_click, lab.replay):
        slider.value = 0.0
    lab.run_button.click()
    assert lab.summary_text.count("duplicates   0") == 4


def test_raising_the_retry_rate_adds_duplicates_except_with_reserved_keys():
    lab = IdempotencyLab(intents=60, auto=False)
    lab.lost_response.value, lab.double_click.value, lab.replay.value = 0.5, 0.3, 0.0
    lab.run_button.click()
    assert "duplicates   0" not in line(lab.summary_text, "no key")
    assert "duplicates   0" in line(lab.summary_text, "key reserved first")
    assert "exactly-once 60/60" in line(lab.summary_text, "key reserved first")


def test_short_key_retention_lets_late_replays_charge_again():
    lab = IdempotencyLab(intents=80, auto=False)
    lab.lost_response.value, lab.double_click.value, lab.replay.value = 0.0, 0.0, 0.5
    lab.key_retention.value = "10 s"
    lab.run_button.click()
    assert "keys kept 10 s" in lab.summary_text
    assert "duplicates   0" not in line(lab.summary_text, "key reserved first")
    lab.key_retention.value = "forever"
    lab.run_button.click()
    assert "duplicates   0" in line(lab.summary_text, "key reserved first")


def test_cache_lab_reports_the_chosen_ttl_and_zero_ttl_never_hits():
    lab = CacheLab(auto=False)
    lab.ttl.value = 0
    lab.run_button.click()
    assert "TTL 0 s" in lab.summary_text and "hit rate 0.0%" in lab.summary_text
    lab.ttl.value = 1200
    lab.changes_per_hour.value = 30.0
    lab.run_button.click()
    assert "TTL 1200 s" in lab.summary_text and "30×/hour" in lab.summary_text
    assert lab.svg.startswith("<svg") and "TTL 1200 s" in lab.svg


def test_cache_lab_slider_redraws_by_itself():
    lab = CacheLab()
    runs = lab.runs
    lab.query_rate.value = 2.0
    assert lab.runs == runs + 1 and "2 queries/s" in lab.summary_text


# -- the static figures ----------------------------------------------------------------------------
def test_side_effect_bars_stack_duplicates_on_the_charges_and_mark_the_intended_count():
    faults = FaultRates(lost_response=0.4)
    reports = [
        run_dedup(40, faults, seed=1, idempotent=False, label="no key"),
        run_dedup(40, faults, seed=1, label="key reserved first"),
    ]
    ax = plot_side_effects(reports, Figure().subplots())
    heights = [round(bar.get_height()) for bar in ax.patches]
    charged = [r.intents - r.missing for r in reports]
    assert heights == charged + [r.duplicate_effects for r in reports]
    assert reports[0].duplicate_effects > 0 == reports[1].duplicate_effects
    assert [t.get_text() for t in ax.get_xticklabels()] == ["no key", "key reserved first"]


def test_the_cache_plot_shows_simulated_points_on_the_formula_curves():
    reports = ttl_sweep([0, 600], duration=1800, seed=0)
    ax = plot_cache_ttl_tradeoff(reports, Figure().subplots(), mark=600)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:4] == [
        "hit rate (formula)",
        "stale (formula)",
        "hit rate (simulated)",
        "stale answers (simulated)",
    ]
    hits = ax.get_lines()[2]
    assert list(hits.get_ydata()) == [r.hit_rate for r in reports] and reports[0].hit_rate == 0.0
    bare = plot_cache_ttl_tradeoff(reports, Figure().subplots(), closed_form=False)
    assert [line.get_label() for line in bare.get_lines()] == labels[2:4]
