"""docs/examples/authenticate.py, run as a user runs it, against a real ``agentproto serve --auth``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "examples" / "authenticate.py"
SECRET = "an-example-secret-of-32-characters"


def test_the_example_authenticates_with_every_client_on_every_binding(tmp_path):
    pytest.importorskip("grpc")  # the card lists the gRPC binding only where grpcio is installed
    from tests.servers import free_port, serving_process

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "AGENTPROTO_CLIENT_SECRET_ALICE": SECRET, "PYTHONUNBUFFERED": "1"}
    serve = [sys.executable, "-m", "agentproto", "serve", "--auth", "--client", "alice"]
    serve += ["--port", str(port), "--db", ":memory:", "--log-level", "warning"]
    with serving_process(
        serve, cwd=tmp_path, env=env, log_path=tmp_path / "serve.log", ready_url=base + "/", headers={}
    ):
        done = subprocess.run(
            [sys.executable, str(SCRIPT), base, "alice"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"tokens from {base}/oauth/token as alice"  # the card's tokenUrl
    rows = [line.split() for line in lines[1:-1]]
    assert [row[-2:] for row in rows if row[0] == "A2A"] == [
        ["SyncA2AClient", "TASK_STATE_COMPLETED"],
        ["SyncA2AClient", "TASK_STATE_COMPLETED"],
        ["SyncA2AClient", "TASK_STATE_COMPLETED"],
        ["A2AClient", "TASK_STATE_COMPLETED"],
        ["RestA2AClient", "TASK_STATE_COMPLETED"],
        ["GrpcA2AClient", "TASK_STATE_COMPLETED"],
    ]
    assert [row[1] for row in rows if row[0] == "A2A"] == ["jsonrpc", "rest", "grpc"] * 2
    assert [row[-2:] for row in rows if row[0] == "AG-UI"] == [
        ["AGUIClient", "interrupt"],
        ["SyncAGUIClient", "interrupt"],
    ]
    assert lines[-1] == "1 token(s) fetched for 8 clients"  # one token, kept and shared


def test_the_example_without_a_secret_says_which_variable_to_set(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "AGENTPROTO_CLIENT_SECRET_NOBODY"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and "AGENTPROTO_CLIENT_SECRET_<CLIENT_ID>" in done.stderr
