"""``make classroom``: a real JupyterHub with 2 students (3 in ``make soak``), each running
notebooks 00, 06 and 11.

The whole classroom runs (``tools/classroom.py``): the hub and its Node.js proxy on random
loopback ports, students who log in at the same time, start their own server and execute the
notebooks through it, then everything is stopped. Two students are the smallest class that
still shows what a class needs: servers started side by side, each student's own home, course
copy, token and kernels, every one through; ``make soak`` (``AGENTPROTO_SOAK=1``) runs 3. The test
checks the report the instructor reads and that nothing was left running. Skipped only when
Node.js or npm is missing (the proxy needs them); under a minute on two cores.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.sizes import size

pytestmark = [pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
STUDENTS = size(2, 3)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js/npm not installed: JupyterHub's proxy (configurable-http-proxy) needs them")
    out = tmp_path_factory.mktemp("classroom") / "classroom.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "classroom.py"),
            "--students",
            str(STUDENTS),
            "--out",
            str(out),
            "--timeout",
            "240",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=330,
    )
    assert out.exists(), f"no report (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    data = json.loads(out.read_text())
    data["_exit"], data["_log"] = proc.returncode, proc.stdout[-3000:] + proc.stderr[-2000:]
    return data


@pytest.mark.timeout(400)
def test_every_student_got_through(report):
    assert report["failures"] == [], json.dumps(report["failures"], indent=2)
    assert report["students"] == STUDENTS
    assert report["succeeded"] == STUDENTS
    assert report["_exit"] == 0, report["_log"]
    assert report["notebooks"] == [
        "00_start_here.ipynb",
        "06_interrupts_resume.ipynb",
        "11_a2a_messaging_streaming_push.ipynb",
    ]
    assert set(report["notebook_p50_s"]) == set(report["notebooks"])


@pytest.mark.timeout(400)
def test_the_figures_are_present_and_sane(report):
    p50, p95 = report["start_p50_s"], report["start_p95_s"]
    assert isinstance(p50, float) and isinstance(p95, float)
    assert 0 < p50 <= p95 < 240  # a server start took some time, and less than the whole run
    rss = report["rss_per_student_mb"]
    # a Jupyter server with a Python kernel that imported the course: tens to hundreds of MB
    assert isinstance(rss, float) and 50 < rss < 4000
    assert report["rss_per_student_max_mb"] >= rss
    assert report["hub_and_proxy_rss_mb"] > 0
    assert report["peak_total_rss_mb"] >= rss
    assert report["wall_s"] > p50


@pytest.mark.timeout(400)
def test_nothing_is_left_running(report):
    assert report["leftover_processes"] == []
