"""``agentproto serve``: loopback by default, a real server that answers, clean failures."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import platformdirs

from agentproto.cli import build_parser, main
from agentproto.demo.serve import default_db_path
from tests.servers import stop_with_ctrl_c


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
        stop_with_ctrl_c(proc)
    assert proc.returncode == 0


def test_the_demo_app_closes_its_a2a_service_on_shutdown():
    import httpx

    from agentproto.demo.app import create_app
    from agentproto.server import running_server

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
    from agentproto.server import running_server

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


# --------------------------------------------------------------------------- --auth clients (F7, F8)

STRONG = "alice-secret-0123456789"


def recorded_serve(monkeypatch):
    """Replace serve's handler with one that records the arguments it would have run with."""
    seen: list = []
    monkeypatch.setattr("agentproto.demo.serve.run", lambda args: seen.append(args) or 0)
    return seen


def test_a_short_client_secret_is_refused_at_start_up(tmp_path, capsys):
    db = str(tmp_path / "missing" / "x.sqlite3")
    assert main(["serve", "--auth", "--client", "bob:b", "--db", db, "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "at least 16" in err and "bob" in err and "cannot start" not in err


def test_client_name_alone_takes_its_secret_from_the_environment(monkeypatch, capsys):
    seen = recorded_serve(monkeypatch)
    monkeypatch.setenv("AGENTPROTO_CLIENT_SECRET_ALICE_2", STRONG)
    assert main(["serve", "--auth", "--client", "alice-2"]) == 0
    assert seen[0].client == [f"alice-2:{STRONG}"]
    assert "warning" not in capsys.readouterr().err


def test_a_missing_secret_variable_names_the_variable(monkeypatch, capsys):
    recorded_serve(monkeypatch)
    monkeypatch.delenv("AGENTPROTO_CLIENT_SECRET_CAROL", raising=False)
    assert main(["serve", "--auth", "--client", "carol"]) == 2
    assert "AGENTPROTO_CLIENT_SECRET_CAROL" in capsys.readouterr().err


def test_a_secret_on_the_command_line_still_works_with_a_warning(monkeypatch, capsys):
    seen = recorded_serve(monkeypatch)
    assert main(["serve", "--auth", "--client", f"alice:{STRONG}"]) == 0
    assert seen[0].client == [f"alice:{STRONG}"]
    err = capsys.readouterr().err
    assert "warning" in err and "process list" in err and "AGENTPROTO_CLIENT_SECRET_ALICE" in err
    assert STRONG not in err


def test_clients_come_from_a_file_only_this_user_can_read(monkeypatch, tmp_path, capsys):
    seen = recorded_serve(monkeypatch)
    path = tmp_path / "clients"
    path.write_text(f"# name:secret\nalice:{STRONG}\n\nbob:bob-secret-0123456789:with-colon\n")
    path.chmod(0o644)
    assert main(["serve", "--auth", "--clients-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert "0644" in err and "chmod 600" in err and STRONG not in err
    path.chmod(0o600)
    assert main(["serve", "--auth", "--clients-file", str(path)]) == 0
    assert seen[0].client == [f"alice:{STRONG}", "bob:bob-secret-0123456789:with-colon"]
    assert "warning" not in capsys.readouterr().err


def test_auth_without_any_client_says_how_to_give_one(monkeypatch, capsys):
    recorded_serve(monkeypatch)
    assert main(["serve", "--auth"]) == 2
    err = capsys.readouterr().err
    assert "--clients-file" in err and "AGENTPROTO_CLIENT_SECRET_" in err


def test_the_secret_from_the_environment_is_not_in_the_process_list(tmp_path):
    from tests.servers import free_port, serving_process

    port = free_port()
    env = {**os.environ, "AGENTPROTO_CLIENT_SECRET_ALICE": STRONG, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "agentproto", "serve", "--auth", "--client", "alice", "--port", str(port)]
    cmd += ["--db", ":memory:", "--no-grpc", "--log-level", "warning"]
    base = f"http://127.0.0.1:{port}"
    with serving_process(
        cmd, cwd=tmp_path, env=env, log_path=tmp_path / "serve.log", ready_url=base + "/", headers={}
    ):
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
        cmdlines = []
        for pid in pids:
            try:
                cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
            except OSError:
                continue
        ours = [c for c in cmdlines if b"agentproto" in c and str(port).encode() in c]
        assert ours and not any(STRONG.encode() in c for c in ours)
        form = {"grant_type": "client_credentials", "client_id": "alice", "client_secret": STRONG}
        assert httpx.post(base + "/oauth/token", data=form, timeout=10).status_code == 200


def test_serve_help_shows_the_token_request_form_encoded():
    from agentproto.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    text = commands["serve"].format_help()
    assert "/oauth/token -d grant_type=client_credentials" in text
    assert "application/x-www-form-urlencoded" in text and "Authorization: Bearer" in text


def test_serve_describes_its_server_as_one_config():
    from agentproto.demo.serve import config_from_args
    from agentproto.server import ServerConfig

    argv = ["serve", "--port", "0", "--db", ":memory:", "--no-grpc", "--allowed-origin", "http://a.example"]
    config = config_from_args(build_parser().parse_args(argv))
    assert isinstance(config, ServerConfig) and config.auth is None
    assert (config.port, config.db, config.allowed_origins) == (0, ":memory:", ("http://a.example",))
    assert config.bindings.grpc is False and config.webhooks.allow_loopback(config)  # the course's pushes


def test_serve_auth_is_in_the_config_and_refuses_loopback_webhooks_unless_asked():
    from agentproto.demo.serve import config_from_args

    argv = ["serve", "--auth", "--client", "alice:a-secret-of-16-chars", "--header-timeout", "3"]
    config = config_from_args(build_parser().parse_args(argv), port=8123)
    assert config.auth is not None and config.auth.client_secrets == {"alice": "a-secret-of-16-chars"}
    assert config.auth.issuer_for(config) == "http://127.0.0.1:8123"
    assert not config.webhooks.allow_loopback(config) and config.connections.head_timeout_s == 3
    asked = config_from_args(build_parser().parse_args([*argv, "--allow-loopback-webhooks"]))
    assert asked.webhooks.allow_loopback(asked)
