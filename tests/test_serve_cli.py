"""``agentproto serve``: loopback by default, a real server that answers, clean failures."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import platformdirs

from agentproto.cli import build_parser, main
from agentproto.demo.serve import default_db_path


def test_serve_binds_loopback_by_default():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, None)


def test_the_default_database_lives_in_the_users_data_directory():
    path = default_db_path()
    assert path.parent == Path(platformdirs.user_data_dir("agentproto"))
    assert path.suffix == ".sqlite3"


def test_an_unusable_database_path_exits_2_with_a_message(tmp_path, capsys):
    assert main(["serve", "--db", str(tmp_path), "--port", "0"]) == 2
    assert "cannot start" in capsys.readouterr().err


def test_a_port_in_use_exits_2_with_a_message(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--db", ":memory:", "--port", str(port)]) == 2
    assert "cannot bind" in capsys.readouterr().err


def test_serve_prints_its_urls_and_answers_until_interrupted():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentproto",
            "serve",
            "--port",
            "0",
            "--db",
            ":memory:",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        lines = []
        deadline = time.monotonic() + 30
        while not any("Ctrl-C" in line for line in lines):
            assert time.monotonic() < deadline, lines
            line = proc.stdout.readline()
            assert line, f"server exited early: {lines}"
            lines.append(line)
        agent_line = next(line for line in lines if "/ag-ui/agent" in line)
        base = re.search(r"(http://127\.0\.0\.1:\d+)", agent_line).group(1)
        assert httpx.get(f"{base}/", timeout=5).json()["agui"]["agent"] == "/ag-ui/agent"
        body = {
            "threadId": "t",
            "runId": "r",
            "messages": [{"id": "u", "role": "user", "content": "refund order A1025"}],
        }
        response = httpx.post(
            f"{base}/ag-ui/agent", json=body, headers={"Accept": "text/event-stream"}, timeout=10
        )
        assert response.status_code == 200 and b"RUN_FINISHED" in response.content
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - only if shutdown hangs
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


def test_the_demo_app_closes_its_a2a_service_on_shutdown():
    import httpx

    from agentproto.demo.app import create_app
    from agentproto.testing import running_server

    app = create_app(":memory:")
    service = app.state.a2a_service
    closed = []
    real_aclose = service.aclose

    async def spy() -> None:
        closed.append(True)
        await real_aclose()

    service.aclose = spy
    with running_server(app) as url:
        assert httpx.get(url + "/").json()["a2a"] is True
        assert not closed
    assert closed == [True]


def test_the_demo_app_can_leave_a2a_out():
    import httpx

    from agentproto.demo.app import create_app
    from agentproto.testing import running_server

    with running_server(create_app(":memory:", a2a_agent=None)) as url:
        assert httpx.get(url + "/").json()["a2a"] is False
        assert httpx.get(url + "/.well-known/agent-card.json").status_code == 404


def test_serve_imports_the_first_runs_slow_dependency_before_it_is_ready():
    """The first AG-UI run would otherwise import jsonschema (seconds, with Jupyter's extras)."""
    code = (
        "import sys; from agentproto.demo.serve import _warm_up; "
        "assert 'jsonschema' not in sys.modules; _warm_up(); print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
