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
    out = subprocess.run([sys.executable, "-m", "agentproto", "doctor", "--required-only"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "required checks passed" in out.stdout


def test_a_reader_that_leaves_early_does_not_cause_a_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "agentproto", "doctor"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # like `| head -0`
    _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err
