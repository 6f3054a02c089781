"""The ``agentproto`` command line frame."""

from __future__ import annotations

import subprocess
import sys

from agentproto import __version__
from agentproto.cli import COMMANDS, build_parser, main


def test_version_flag_prints_the_package_version():
    out = subprocess.run([sys.executable, "-m", "agentproto", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"agentproto {__version__}"


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_every_documented_command_is_registered():
    parser = build_parser()
    help_text = parser.format_help()
    for name, _help, _module in COMMANDS:
        assert name in help_text


def test_doctor_command_exits_0_when_the_environment_is_complete():
    out = subprocess.run(
        [sys.executable, "-m", "agentproto", "doctor", "--required-only"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "required checks passed" in out.stdout


def test_a_reader_that_leaves_early_does_not_cause_a_traceback():
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentproto", "doctor"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # like `| head -0`
    _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err


# -- start-up: a command imports only what it needs -------------------------------------------

_HEAVY = (
    "agentproto.demo",
    "agentproto.a2a",
    "agentproto.course",
    "agentproto.agui.client",
    "agentproto.agui.server",
    "httpx",
    "starlette",
    "uvicorn",
    "jsonschema",
    "jsonpatch",
    "IPython",
    "matplotlib",
    "ipywidgets",
)


def _modules_after(code: str) -> tuple[list[str], str]:
    """Run *code* in a fresh interpreter; return the heavy modules it loaded, and its output."""
    probe = (
        f"import sys\n{code}\nprint('LOADED:', *sorted(m for m in sys.modules if m.startswith({_HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    [loaded] = [line for line in out.stdout.splitlines() if line.startswith("LOADED:")]
    return loaded.split()[1:], out.stdout


def test_lint_imports_neither_the_other_commands_nor_jsonschema_nor_jsonpatch(tmp_path):
    capture = tmp_path / "deltas.jsonl"  # state deltas that apply need no jsonpatch either
    capture.write_text(
        '{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n'
        '{"type": "STATE_SNAPSHOT", "snapshot": {"todos": [], "n": 0, "x": 1}}\n'
        '{"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/todos/-", "value": 1}, '
        '{"op": "replace", "path": "/n", "value": 2}, {"op": "remove", "path": "/x"}]}\n'
        '{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}\n'
    )
    loaded, out = _modules_after(
        f"from agentproto.cli import main\nassert main(['lint', {str(capture)!r}]) == 0"
    )
    assert "conformant" in out
    assert loaded == []


def test_top_level_help_imports_no_command_module():
    loaded, out = _modules_after(
        "from agentproto.cli import build_parser\n"
        "print(build_parser([]).format_help())\n"
        "assert 'agentproto.agui.pipeline' not in sys.modules"
    )
    assert all(name in out for name, _, _ in COMMANDS)
    assert loaded == []


def test_only_the_command_named_is_configured():
    help_text = build_parser(["lint"])._subparsers._group_actions[0].choices["lint"].format_help()
    assert "--format" in help_text
    unconfigured = build_parser([])._subparsers._group_actions[0].choices["lint"].format_help()
    assert "--format" not in unconfigured


def test_run_as_the_program_the_collector_is_back_on_after_start_up(tmp_path):
    capture = tmp_path / "two.jsonl"
    capture.write_text(
        '{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n'
        '{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}\n'
    )
    probe = (
        "import gc, sys\n"
        f"sys.argv = ['agentproto', 'lint', {str(capture)!r}]\n"
        "from agentproto.cli import main\n"
        "code = main()\n"
        "print(code, gc.isenabled(), gc.get_freeze_count() > 0)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "0 True True", out.stderr


def test_in_process_callers_keep_their_collector_untouched(capsys):
    import gc

    frozen = gc.get_freeze_count()
    assert main([]) == 2
    assert gc.isenabled() and gc.get_freeze_count() == frozen


# -- a command whose extra is not installed says which one, even for --help --------------------


def _missing(monkeypatch, module_path, missing):
    import importlib

    real = importlib.import_module

    def fake(name, *args):
        if name == module_path:
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        return real(name, *args)

    monkeypatch.setattr("agentproto.cli.importlib.import_module", fake)


def test_a_missing_dependency_names_the_extra_and_exits_2(monkeypatch, capsys):
    _missing(monkeypatch, "agentproto.demo.serve", "platformdirs")
    assert main(["serve", "--help"]) == 2
    err = capsys.readouterr().err
    assert "needs platformdirs" in err and 'pip install "agentproto[server]"' in err


def test_a_missing_module_of_this_package_is_a_bug_and_surfaces(monkeypatch):
    import pytest

    _missing(monkeypatch, "agentproto.agui._lint", "agentproto.agui.nothing")
    with pytest.raises(ModuleNotFoundError):
        main(["lint", "x"])


def test_a_command_missing_from_this_version_says_so(monkeypatch, capsys):
    _missing(monkeypatch, "agentproto.course.doctor", "agentproto.course.doctor")
    assert main(["doctor"]) == 2
    assert "not available in this version" in capsys.readouterr().err
