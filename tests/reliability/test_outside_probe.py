"""The outside probe (``tools/probe_server.py``) holds against a real ``agentproto serve``.

The probe starts the server as a subprocess in both modes (default, and ``--auth`` with two
clients), floods it with malformed requests, and checks poison records, browser-style
requests, client isolation, a restart with history and connection reuse. Here it runs at a
small size; ``python tools/probe_server.py`` runs it at full size (1000 requests per mode).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tools" / "probe_server.py"
REQUESTS = 120

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe")
    report = out / "probe.json"
    done = subprocess.run(
        [
            sys.executable,
            str(PROBE),
            "--requests",
            str(REQUESTS),
            "--mode",
            "both",
            "--seed",
            "7",
            "--json",
            str(report),
            "--workdir",
            str(out / "work"),
        ],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=ROOT,
    )
    figures = json.loads(report.read_text()) if report.exists() else {}
    return done, figures


def _explain(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"


def test_the_probe_passes_in_both_modes(probe):
    done, figures = probe
    assert done.returncode == 0, _explain(done)
    assert figures["ok"] is True and set(figures["modes"]) == {"default", "auth"}


@pytest.mark.parametrize("mode", ["default", "auth"])
def test_a_malformed_flood_gets_no_5xx_no_internal_error_and_no_silence(probe, mode):
    done, figures = probe
    totals = figures["modes"][mode]["totals"]
    assert totals["floodRequests"] == REQUESTS, _explain(done)
    assert totals["flood5xx"] == 0, _explain(done)
    assert totals["flood32603"] == 0, _explain(done)
    assert totals["floodNoAnswer"] == 0, _explain(done)
    assert totals["floodFailures"] == 0, _explain(done)


@pytest.mark.parametrize("mode", ["default", "auth"])
def test_every_check_of_the_probe_passes(probe, mode):
    done, figures = probe
    rows = figures["modes"][mode]["rows"]
    checks = {row["check"] for row in rows}
    assert {"1", "2", "3", "5", "6"} <= checks
    if mode == "auth":
        assert "4" in checks
    failed = [
        f"{row['check']} {row['name']}: {row['failures'][:2]}" for row in rows if row["result"] == "FAIL"
    ]
    assert failed == [], _explain(done)


@pytest.mark.parametrize("mode", ["default", "auth"])
def test_no_task_is_lost_across_the_restart(probe, mode):
    _, figures = probe
    rows = {row["name"]: row for row in figures["modes"][mode]["rows"]}
    for when in ("before restart", "after restart"):
        row = rows[f"no poison record ({when})"]
        assert row["result"] == "PASS", row["failures"][:3]
        assert row["statuses"].get("GetTask ok", 0) >= 1
    assert rows["after restart: new refund approved 1st time"]["result"] == "PASS"
