"""deploy/tljh/agentproto.py, the TLJH config snippet, driven in the order TLJH calls things.

TLJH (tljh/user_creating_spawner.py) creates a learner's system user ``jupyter-NAME`` inside
``Spawner.start()``; JupyterHub has called ``Spawner.pre_spawn_hook`` before that. systemdspawner
then runs ``cmd + args`` as that user in their home (each item through ``str.format`` with
``USERNAME`` and ``USERID``), with the user environment's ``bin`` first on ``PATH``.

Here the snippet is loaded by traitlets' ``PyFileConfigLoader`` (what ``load_subconfig`` uses)
into a real ``Config``, a real JupyterHub ``Spawner`` subclass is built from it, and its
``start()`` does what TLJH's does, on a fake system: the user does not exist until ``start()``
creates it (``pwd.getpwnam`` raises ``KeyError`` before), and the "server" is a stand-in
``jupyterhub-singleuser`` on the user environment's ``PATH`` that records what it finds when it
starts. The course copy and the font cache are the real thing (this checkout's launcher and
matplotlib). Not covered here: the switch to the learner's uid, which is systemd's.
"""

from __future__ import annotations

import asyncio
import glob
import inspect
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

pytest.importorskip("jupyterhub")
from jupyterhub.spawner import Spawner
from traitlets.config import Config, PyFileConfigLoader

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = ROOT / "deploy" / "tljh" / "agentproto.py"
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

#: The stand-in server: records its arguments, working folder, HOME and what is in the home.
FAKE_SINGLEUSER = """\
import json, os, sys
from pathlib import Path
home = Path(os.environ["HOME"])
course = home / "agentproto-course"
record = {
    "argv": sys.argv[1:],
    "cwd": os.getcwd(),
    "home": str(home),
    "course": sorted(p.name for p in course.iterdir()) if course.is_dir() else None,
    "font_cache": sorted(p.name for p in (home / ".cache" / "matplotlib").glob("fontlist-*.json")),
}
with open(os.environ["FAKE_SERVER_RECORD"], "a") as f:
    f.write(json.dumps(record) + "\\n")
"""


class FakeSystem:
    """The machine's users: none until TLJH's ``useradd --create-home``."""

    def __init__(self, root: Path, prefix: Path) -> None:
        self.root, self.prefix = root, prefix
        self.users: dict[str, Path] = {}
        self.events: list[str] = []

    def getpwnam(self, name: str) -> pwd.struct_passwd:
        if name not in self.users:
            raise KeyError(f"getpwnam(): name not found: {name!r}")
        me = pwd.getpwuid(os.getuid())
        return pwd.struct_passwd((name, "x", me.pw_uid, me.pw_gid, "", str(self.users[name]), "/bin/bash"))

    def useradd(self, name: str) -> None:
        home = self.root / "home" / name
        home.mkdir(parents=True)
        self.users[name] = home
        self.events.append(f"useradd {name}")


class FakeTLJHSpawner(Spawner):
    """UserCreatingSpawner + SystemdSpawner, reduced to what decides the order."""

    system: FakeSystem  # set by the fixture
    record: Path

    async def start(self):
        system = self.system
        username = "jupyter-" + self.user.name  # tljh.normalize for short names
        try:  # tljh.user.ensure_user
            pwd.getpwnam(username)
        except KeyError:
            system.useradd(username)
        pw = pwd.getpwnam(username)  # SystemdSpawner.start: the unit runs as this user
        expand = {"USERNAME": self.user.name, "USERID": self.user.id}
        cmd = [item.format(**expand) for item in self.cmd]
        args = [item.format(**expand) for item in self.get_args()]
        userbin = str(system.prefix / "user" / "bin")  # c.SystemdSpawner.extra_paths
        env = {
            k: v for k, v in os.environ.items() if k not in {"MPLCONFIGDIR", "XDG_CACHE_HOME", "VIRTUAL_ENV"}
        }
        env |= {"HOME": pw.pw_dir, "PATH": userbin + os.pathsep + os.environ.get("PATH", os.defpath)}
        env["FAKE_SERVER_RECORD"] = str(self.record)
        if not os.path.isabs(cmd[0]):  # systemd-run gets an absolute path (systemdspawner does this)
            cmd[0] = os.path.join(userbin, cmd[0])
        system.events.append("server starts")
        proc = await asyncio.to_thread(
            subprocess.run, cmd + args, cwd=pw.pw_dir, env=env, capture_output=True, text=True, timeout=300
        )
        self.last_output = proc.stdout + proc.stderr
        assert proc.returncode == 0, self.last_output
        return ("127.0.0.1", 8888)

    async def poll(self):
        return 0

    async def stop(self, now=False):
        return None


class FakeUser:
    def __init__(self, name: str, uid: int) -> None:
        self.name, self.id, self.admin = name, uid, False


def login(spawner: Spawner) -> None:
    """What JupyterHub's ``User.spawn`` does with the spawner, in its order."""

    async def spawn():
        hooked = spawner.run_pre_spawn_hook()
        if inspect.isawaitable(hooked):
            await hooked
        spawner.system.events.append("pre_spawn_hook done")
        return await spawner.start()

    asyncio.run(spawn())


@pytest.fixture
def tljh(tmp_path, monkeypatch):
    """A fake TLJH prefix (user env python = this venv's), a fake system, the loaded snippet."""
    prefix = tmp_path / "opt-tljh"
    userbin = prefix / "user" / "bin"
    userbin.mkdir(parents=True)
    shim = userbin / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    server = userbin / "jupyterhub-singleuser"
    server.write_text(f"#!{sys.executable}\n{FAKE_SINGLEUSER}")
    for path in (shim, server):
        path.chmod(0o755)
    system = FakeSystem(tmp_path, prefix)
    monkeypatch.setattr(pwd, "getpwnam", system.getpwnam)
    monkeypatch.setenv("TLJH_INSTALL_PREFIX", str(prefix))
    return system


def load_config(base: Config | None = None) -> Config:
    loader = PyFileConfigLoader(SNIPPET.name, path=str(SNIPPET.parent))
    config = Config(base or {})
    config.merge(loader.load_config())  # what load_subconfig does: a fresh `c`, then merged
    return config


def make_spawner(system: FakeSystem, config: Config, tmp_path: Path, name: str = "ada") -> FakeTLJHSpawner:
    FakeTLJHSpawner.system = system
    FakeTLJHSpawner.record = tmp_path / f"server-{name}.jsonl"
    return FakeTLJHSpawner(user=FakeUser(name, 7), config=config)


def records(spawner: FakeTLJHSpawner) -> list[dict]:
    return [json.loads(line) for line in spawner.record.read_text().splitlines()]


def test_the_snippet_sets_a_pre_spawn_hook_and_nothing_that_needs_the_user(tljh):
    config = load_config()
    assert callable(config.Spawner.pre_spawn_hook)
    assert set(config) == {"Spawner"} and set(config.Spawner) == {"pre_spawn_hook"}


def test_first_login_works_although_the_user_does_not_exist_when_the_hook_runs(tljh, tmp_path):
    spawner = make_spawner(tljh, load_config(), tmp_path)
    with pytest.raises(KeyError):  # the harness reproduces TLJH: no user before start()
        pwd.getpwnam("jupyter-ada")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    asyncio.run(_only_the_hook(spawner))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before, "the hook wrote files"

    login(spawner)
    assert tljh.events == ["pre_spawn_hook done", "useradd jupyter-ada", "server starts"]
    (seen,) = records(spawner)
    home = tljh.users["jupyter-ada"]
    assert seen["home"] == seen["cwd"] == str(home)
    assert seen["argv"] == [], "the real command got other arguments than the spawner's"
    assert seen["course"] is not None and set(NOTEBOOKS) <= set(seen["course"]), "no course at server start"
    assert "README.md" in seen["course"]
    assert seen["font_cache"], "no matplotlib font cache when the server started"
    for name in NOTEBOOKS:
        assert (home / "agentproto-course" / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()


async def _only_the_hook(spawner: Spawner) -> None:
    hooked = spawner.run_pre_spawn_hook()
    if inspect.isawaitable(hooked):
        await hooked


def test_later_logins_keep_an_edited_notebook_and_restore_a_deleted_one(tljh, tmp_path):
    spawner = make_spawner(tljh, load_config(), tmp_path)
    login(spawner)
    course = tljh.users["jupyter-ada"] / "agentproto-course"
    edited, deleted = course / NOTEBOOKS[1], course / NOTEBOOKS[2]
    mine = edited.read_bytes().replace(
        b'"cells": [',
        b'"cells": [{"cell_type": "markdown", "id": "mine", "metadata": {}, "source": ["my notes"]},',
        1,
    )
    assert mine != edited.read_bytes()
    edited.write_bytes(mine)
    deleted.unlink()
    font_cache = sorted((tljh.users["jupyter-ada"] / ".cache" / "matplotlib").glob("fontlist-*.json"))
    cache_mtimes = [p.stat().st_mtime_ns for p in font_cache]

    # JupyterHub keeps the spawner object between a learner's starts: the hook runs again on it
    login(spawner)
    login(make_spawner(tljh, load_config(), tmp_path))  # and after a hub restart, a new one
    assert tljh.events.count("useradd jupyter-ada") == 1
    assert spawner.cmd.count("agentproto-prepare") == 1, f"the command was wrapped twice: {spawner.cmd}"
    assert edited.read_bytes() == mine, "a learner's edited notebook was overwritten"
    assert deleted.read_bytes() == (ROOT / "notebooks" / NOTEBOOKS[2]).read_bytes()
    assert [p.stat().st_mtime_ns for p in font_cache] == cache_mtimes, "the font cache was rebuilt"
    assert len(records(spawner)) == 3


def test_two_learners_get_their_own_copies(tljh, tmp_path):
    config = load_config()
    for name in ("ada", "grace"):
        login(make_spawner(tljh, config, tmp_path, name))
    homes = [tljh.users["jupyter-ada"], tljh.users["jupyter-grace"]]
    assert all((home / "agentproto-course" / NOTEBOOKS[0]).is_file() for home in homes)
    assert homes[0] != homes[1]


def test_a_failed_copy_is_logged_and_the_server_still_starts(tljh, tmp_path):
    spawner = make_spawner(tljh, load_config(), tmp_path)
    tljh.useradd("jupyter-ada")  # an existing learner whose course folder name is taken by a file
    (tljh.users["jupyter-ada"] / "agentproto-course").write_text("not a folder")
    login(spawner)
    (seen,) = records(spawner)
    assert seen["course"] is None
    assert "the course was not copied" in spawner.last_output


def test_merged_into_tljhs_config_like_load_subconfig_keeps_tljhs_settings(tljh, tmp_path):
    base = Config()
    base.Spawner.default_url = "/lab"  # what tljh.configurer sets for default_app jupyterlab
    base.Spawner.mem_limit = "1G"
    config = load_config(base)
    assert config.Spawner.default_url == "/lab" and config.Spawner.mem_limit == "1G"
    spawner = make_spawner(tljh, config, tmp_path)
    assert spawner.default_url == "/lab"
    login(spawner)
    assert records(spawner)[0]["course"]


def test_the_wrapper_survives_systemdspawner_formatting_and_quotes_its_paths(tljh, tmp_path):
    namespace: dict = {"c": Config()}
    exec(compile(SNIPPET.read_text(), str(SNIPPET), "exec"), namespace)
    cmd = namespace["wrap_command"](["jupyterhub-singleuser"], "/opt/my tljh/user/bin/python")
    assert [item.format(USERNAME="ada", USERID=7) for item in cmd] == cmd
    assert "'/opt/my tljh/user/bin/python'" in cmd[2]
    assert cmd[-1] == "jupyterhub-singleuser" and namespace["wrap_command"](cmd) == cmd
    assert namespace["PYTHON"] == str(tljh.prefix / "user" / "bin" / "python")


def test_the_guide_installs_this_file_and_keeps_no_copy_of_it():
    guide = (ROOT / "docs" / "workshop.md").read_text()
    assert "deploy/tljh/agentproto.py" in guide
    assert "/opt/tljh/config/jupyterhub_config.d/" in guide
    assert "pwd.getpwnam" not in guide and "def give_the_course" not in guide


def _guide_tljh_pip_line() -> list[str]:
    """The guide's ``sudo /opt/tljh/user/bin/pip install ...`` line, as arguments after ``pip``."""
    guide = (ROOT / "docs" / "workshop.md").read_text()
    (line,) = re.findall(r"^\$ sudo /opt/tljh/user/bin/pip (install .*)$", guide, re.M)
    return shlex.split(line)


def _python312() -> str | None:
    """A Python 3.12 that runs (a pyenv shim may exist without the version selected)."""
    candidates = [
        shutil.which("python3.12"),
        *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12"))),
    ]
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True
        )
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 12)":
            return candidate
    return None


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_guides_install_line_works_in_a_tljh_like_user_environment(tmp_path):
    """TLJH's user environment: Python 3.12 (Miniforge 24.7.1) with JupyterHub 5 in it (TLJH
    installs ``jupyterhub>=5.2.0,<6`` there, tljh/requirements-hub-env.txt). The guide's pip line
    must install the course into it and leave that JupyterHub consistent (``pip check``)."""
    python = _python312()
    if python is None:
        pytest.skip("no working python3.12 on this machine (TLJH's user environment has 3.12)")
    home = tmp_path / "tljh-user"
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    hub_env = ["jupyterhub>=5.2.0,<6", f"pip=={metadata.version('pip')}"]
    # TLJH's user environment is made with uv, the installer the Makefile uses: making it is not
    # what is tested (the guide's pip line below is, with pip). With it a current pip, as TLJH's
    # Miniforge 24.7.1 carries (pip 24); the one Python 3.12.1's venv seeds is 23.2. Where uv
    # cannot, the seeded pip installs the same.
    subprocess.run([python, "-m", "venv", "--without-pip", str(home)], check=True, env=env)
    uv = [sys.executable, "-m", "uv", "pip", "install", "-q", "--compile-bytecode"]  # pip runs often
    uv += ["--python", str(home / "bin" / "python")]
    made = subprocess.run([*uv, *hub_env], env=env, capture_output=True, text=True, timeout=1500)
    if made.returncode != 0:
        subprocess.run([python, "-m", "venv", "--clear", str(home)], check=True, env=env)
    pip = [str(home / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*pip, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
        if proc.returncode and any(
            w in proc.stderr for w in ("NewConnectionError", "Network is unreachable")
        ):
            pytest.skip(f"the package index cannot be reached: {proc.stderr[-300:]}")
        return proc

    if made.returncode != 0:
        first = run("install", *hub_env)
        assert first.returncode == 0, first.stderr[-3000:]
    args = _guide_tljh_pip_line()
    assert args[:3] == ["install", "-c", "requirements/lock.txt"] and ".[course]" in args
    course = run(*args)
    assert course.returncode == 0, course.stderr[-3000:]
    check = run("check")
    assert check.returncode == 0, check.stdout + check.stderr
    code = "import importlib.metadata as m; print(m.version('jupyterhub'))"
    out = subprocess.run(
        [str(home / "bin" / "python"), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.stdout.startswith("5."), f"the course install changed TLJH's JupyterHub: {out.stdout}"
    copied = subprocess.run(
        [
            str(home / "bin" / "python"),
            "-m",
            "agentproto.course.launcher",
            "--dir",
            str(tmp_path / "c"),
            "--print-command",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert copied.returncode == 0, copied.stderr
    assert {p.name for p in (tmp_path / "c").glob("*.ipynb")} == set(NOTEBOOKS)
