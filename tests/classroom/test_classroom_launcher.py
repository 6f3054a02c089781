"""``agentproto lab`` (agentproto/course/launcher.py): copy the course, keep the learner's edits.

The launcher copies the notebooks into a folder of the learner's own, never overwrites a file
that is there, installs the kit's JupyterLab defaults (no news prompt) and starts JupyterLab
on 127.0.0.1. ``--print-command`` shows the command instead of running it; one test really
starts JupyterLab on a free port, checks that it serves the course with the defaults applied,
and stops it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agentproto.course import launcher
from tests.servers import free_port, serving_process

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


def _run(*argv: str) -> tuple[int, str]:
    """``agentproto lab ARGV`` (as ``python -m agentproto.course.launcher``), output captured."""
    proc = subprocess.run(
        [sys.executable, "-m", "agentproto.course.launcher", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_configure_and_run_have_the_cli_shape():
    parser = argparse.ArgumentParser()
    launcher.configure(parser)
    args = parser.parse_args(["--dir", "x", "--port", "9999", "--no-browser", "--print-command"])
    assert args.handler is launcher.run
    assert (args.dir, args.port, args.no_browser, args.print_command) == ("x", 9999, True, True)
    assert parser.parse_args([]).port == 8888


def test_the_course_is_found_in_this_checkout():
    source = launcher.course_source()
    assert source is not None
    names = [p.name for p in launcher.course_files(source)]
    assert [n for n in names if n.endswith(".ipynb")] == NOTEBOOKS
    assert "README.md" in names


def test_the_course_is_found_inside_an_installed_wheel(tmp_path, monkeypatch):
    """In a wheel the notebooks ship as agentproto/course/notebooks (importlib.resources)."""
    fake = tmp_path / "site" / "agentproto" / "course"
    (fake / "notebooks").mkdir(parents=True)
    (fake / "notebooks" / "00_start_here.ipynb").write_text("{}")

    class Files:
        def __init__(self, root: Path) -> None:
            self.root = root

        def __call__(self, package: str) -> Path:
            assert package == "agentproto.course"
            return self.root

    monkeypatch.setattr(launcher.resources, "files", Files(fake))
    assert launcher.course_source() == fake / "notebooks"


def test_first_run_copies_the_course_and_prints_the_command(tmp_path):
    dest = tmp_path / "my course"
    code, out = _run("--dir", str(dest), "--no-browser", "--print-command")
    assert code == 0, out
    assert sorted(p.name for p in dest.glob("*.ipynb")) == NOTEBOOKS
    assert (dest / "README.md").exists()
    assert f"Copied {len(NOTEBOOKS) + 1} course file(s)" in out
    command = shlex.split(out.strip().splitlines()[-1])
    assert command[:3] == [sys.executable, "-m", "jupyterlab"]
    assert "--ServerApp.ip=127.0.0.1" in command and "--no-browser" in command
    assert f"--ServerApp.root_dir={dest}" in command
    assert command[-1] == str(dest / "00_start_here.ipynb")
    for name in NOTEBOOKS:  # the copies are the shipped files, byte for byte
        assert (dest / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()
    assert not list(dest.glob(".*.partial"))


def test_second_run_keeps_an_edited_notebook_and_restores_a_deleted_one(tmp_path):
    dest = tmp_path / "course"
    assert _run("--dir", str(dest), "--print-command")[0] == 0
    edited = dest / NOTEBOOKS[1]
    edited.write_text('{"my": "edits"}')
    (dest / NOTEBOOKS[2]).unlink()
    code, out = _run("--dir", str(dest), "--print-command")
    assert code == 0, out
    assert edited.read_text() == '{"my": "edits"}'  # never overwritten
    assert "Kept your own version of 1 file(s)" in out and NOTEBOOKS[1] in out
    assert (dest / NOTEBOOKS[2]).read_bytes() == (ROOT / "notebooks" / NOTEBOOKS[2]).read_bytes()
    assert "Copied 1 course file(s)" in out
    code, out = _run("--dir", str(dest), "--print-command")
    assert "nothing new to copy" in out and "Kept your own version of 1 file(s)" in out


def test_copy_course_reports_each_file(tmp_path):
    source = launcher.course_source()
    report = launcher.copy_course(tmp_path, source)
    assert len(report.copied) == len(NOTEBOOKS) + 1 and not report.kept
    again = launcher.copy_course(tmp_path, source)
    assert not again.copied and not again.kept and len(again.unchanged) == len(report.copied)


def test_the_jupyterlab_defaults_turn_the_news_prompt_off(tmp_path):
    path = launcher.ensure_lab_settings(tmp_path)
    assert path == tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "agentproto.json"
    settings = json.loads(path.read_text())
    assert settings["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    # idempotent, and a read-only environment is reported, not an error
    assert launcher.ensure_lab_settings(tmp_path) == path
    assert launcher.ensure_lab_settings("/proc/agentproto-cannot-write-here") is None
    private = launcher.private_settings_dir(tmp_path / "dest", tmp_path)
    assert json.loads((private / "overrides.d" / "agentproto.json").read_text()) == settings


def test_the_shipped_settings_file_matches_the_launcher():
    """tools/classroom/lab-settings is what the wheel installs (pyproject shared-data)."""
    shipped = ROOT / "tools" / "classroom" / "lab-settings" / "overrides.d" / "agentproto.json"
    assert json.loads(shipped.read_text()) == launcher.LAB_OVERRIDES


def test_a_missing_course_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(launcher, "course_source", lambda: None)
    parser = argparse.ArgumentParser()
    launcher.configure(parser)
    assert launcher.run(parser.parse_args(["--dir", str(tmp_path), "--print-command"])) == 2
    assert "pip install" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_it_really_starts_jupyterlab_on_the_course_without_the_news_prompt(tmp_path):
    dest, port = tmp_path / "course", free_port()
    env = dict(
        os.environ,
        JUPYTER_TOKEN="classroom-test",
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "user-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
    )
    cmd = [
        sys.executable,
        "-m",
        "agentproto.course.launcher",
        "--dir",
        str(dest),
        "--port",
        str(port),
        "--no-browser",
    ]
    base, headers = f"http://127.0.0.1:{port}", {"Authorization": "token classroom-test"}
    with serving_process(
        cmd,
        cwd=tmp_path,
        env=env,
        log_path=tmp_path / "lab.log",
        ready_url=f"{base}/api/status",
        headers=headers,
    ):
        listing = httpx.get(f"{base}/api/contents/", headers=headers, timeout=10).json()
        assert sorted(i["name"] for i in listing["content"] if i["name"].endswith(".ipynb")) == NOTEBOOKS
        notification = httpx.get(
            f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification",
            headers=headers,
            timeout=10,
        ).json()
        assert notification["schema"]["properties"]["fetchNews"]["default"] == "false"
