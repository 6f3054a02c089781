#!/usr/bin/env python
"""``make classroom STUDENTS=N``: a real JupyterHub with N simulated students, measured.

Usage::

    python tools/classroom.py --students N [--notebooks 00,06,11] [--out build/classroom.json]
                              [--timeout SECONDS] [--keep]

What it does, all on 127.0.0.1 and on random free ports (several copies can run side by side):

1. makes sure JupyterHub's proxy (configurable-http-proxy, from npm) is installed under
   ``build/chp`` (``npm ci`` with the lock file in ``tools/classroom/chp``);
2. starts JupyterHub with its proxy, the ``DummyAuthenticator`` (one shared class password)
   and the ``SimpleLocalProcessSpawner`` (a local process per student, no system users: it
   works as root). The single-user servers run from this script's own Python environment —
   the kit installed once, shared by every student;
3. creates N users and one API token each through the hub's REST API (with an admin token of
   a hub service), then, all at the same time, every student logs in through the login form,
   starts their server through the REST API with their own token and waits for it. The hub's
   ``pre_spawn_hook`` gives each student their own folder with their own copy of the course
   (``agentproto.course.launcher.copy_course``, what ``agentproto lab`` does);
4. runs the chosen notebooks in every student's server, all students at once: the notebook is
   read through the server's contents API, executed by ``nbclient`` in a kernel started
   through the server's kernels API and driven over the server's kernel websocket (through
   the hub's proxy, like JupyterLab in a browser), and saved back through the contents API;
5. samples the memory (RSS) of each student's server and kernels, stops everything it started
   and writes ``build/classroom.json``::

       {"students": N, "succeeded": N, "start_p50_s": ..., "start_p95_s": ...,
        "rss_per_student_mb": ..., "failures": [], ...}

   ``start_*`` is the time from a student's "start my server" request to their server
   answering through the proxy; ``rss_per_student_mb`` is the mean over students of the peak
   resident memory of their server plus its kernel. ``failures`` lists every student who did
   not get through, with the stage and the error.

Exit status ``0`` when every student got through, ``1`` otherwise, ``2`` when the classroom could
not be set up (no Node.js, the hub did not start).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHP_SPEC = ROOT / "tools" / "classroom" / "chp"
BIN = Path(sys.executable).parent
DEFAULT_NOTEBOOKS = ("00", "06", "11")
COURSE_FOLDER = "agentproto-course"  # inside each student's home, as `agentproto lab` names it
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def log(msg: str) -> None:
    print(f"[classroom {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def free_ports(n: int) -> list[int]:
    """*n* distinct free loopback ports (all held open while choosing, so none repeats)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


# -- the proxy ------------------------------------------------------------------------------------


def ensure_proxy(build: Path, timeout: float = 300) -> Path:
    """configurable-http-proxy under ``build/chp``, installed from the pinned lock if missing."""
    if shutil.which("node") is None:
        raise SetupError("Node.js is not installed: JupyterHub's proxy needs it (apt-get install nodejs npm)")
    chp = build / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
    wanted = json.loads((CHP_SPEC / "package.json").read_text())["dependencies"]["configurable-http-proxy"]
    installed = build / "chp" / "node_modules" / "configurable-http-proxy" / "package.json"
    if chp.exists() and installed.exists() and json.loads(installed.read_text())["version"] == wanted:
        return chp
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError("npm is not installed: it installs JupyterHub's proxy (apt-get install npm)")
    target = build / "chp"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(CHP_SPEC / name, target / name)
    log(f"installing configurable-http-proxy {wanted} into {target} (npm ci)")
    result = subprocess.run(
        [npm, "ci", "--prefix", str(target), "--no-audit", "--no-fund", "--loglevel=error"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0 or not chp.exists():
        raise SetupError(f"npm ci failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return chp


class SetupError(RuntimeError):
    """The classroom could not be set up (exit status 2)."""


class Interrupted(Exception):
    """SIGTERM: the run stops, its processes are stopped and the report says how far it got."""


# -- the hub --------------------------------------------------------------------------------------

HUB_CONFIG = '''\
# Written by tools/classroom.py for one classroom run; secrets come from the environment.
import os
import shutil
from pathlib import Path

RUN = Path({run!r})
c = get_config()  # noqa: F821

c.JupyterHub.bind_url = "http://127.0.0.1:{public_port}/"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.JupyterHub.db_url = "sqlite:///" + str(RUN / "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = str(RUN / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(RUN / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.concurrent_spawn_limit = 0
c.JupyterHub.active_server_limit = 0

c.ConfigurableHTTPProxy.command = [{chp!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.pid_file = str(RUN / "proxy.pid")

# One class password; any user name the hub knows (the driver creates them) may log in.
c.JupyterHub.authenticator_class = "jupyterhub.auth.DummyAuthenticator"
c.DummyAuthenticator.password = os.environ["CLASSROOM_PASSWORD"]
c.Authenticator.allow_all = True

# The driver is a hub service with an admin token: it creates the students and their tokens.
c.JupyterHub.services = [{{"name": "classroom-driver", "api_token": os.environ["CLASSROOM_ADMIN_TOKEN"]}}]
c.JupyterHub.load_roles = [{{
    "name": "classroom-driver",
    "scopes": ["admin:users", "admin:servers", "tokens", "list:users", "read:users"],
    "services": ["classroom-driver"],
}}]

# A local process per student, in a home folder of its own, from this Python environment.
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = str(RUN / "homes" / "{{username}}")
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = {spawner_args!r}
c.Spawner.ip = "127.0.0.1"
c.Spawner.notebook_dir = "~"
c.Spawner.default_url = "/lab/tree/{course}/00_start_here.ipynb"
c.Spawner.start_timeout = {start_timeout}
c.Spawner.http_timeout = {start_timeout}
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "VIRTUAL_ENV", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]


def give_the_student_the_course(spawner):
    """Each student's own copy of the course, as `agentproto lab` makes it (missing files only)."""
    from agentproto.course.launcher import copy_course

    copy_course(Path(spawner.home_dir) / "{course}")
    # matplotlib's font cache, built once for the class: without it every student's first
    # plot spends seconds of CPU building their own (and says so on stderr)
    cache = Path(spawner.home_dir) / ".cache" / "matplotlib"
    if not cache.exists() and (RUN / "mpl-cache").is_dir():
        shutil.copytree(RUN / "mpl-cache", cache)


c.Spawner.pre_spawn_hook = give_the_student_the_course
'''


@dataclass
class Proc:
    """A process seen in the hub's tree; (pid, start time) identifies it against pid reuse."""

    pid: int
    start: int
    role: str  # "hub", "proxy", "server:<user>", "kernel:<user>"


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(ppid, start time, rss pages) of *pid* from /proc, or None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[19]), int(fields[21])


class Sampler(threading.Thread):
    """Every second: the hub's process tree, and the peak RSS of each student's processes."""

    def __init__(self, hub_pid: int, homes: Path, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.hub_pid, self.homes, self.interval = hub_pid, homes, interval
        self.seen: dict[int, Proc] = {}
        self.peak_student: dict[str, int] = {}
        self.peak_hub = 0
        self.peak_total = 0
        self.idle_server: dict[str, int] = {}
        self._halt = threading.Event()
        self.peak_pss_total_kb = 0
        self.min_available_mb = float("inf")
        self.memory_floor_mb = 2048  # below this the run is stopped: other work on the machine comes first
        self.memory_low = False
        self.lock = threading.Lock()

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            with contextlib.suppress(Exception):
                self.sample()

    def tree(self) -> dict[int, tuple[int, int, int]]:
        """Every process under the hub: pid -> (ppid, start, rss pages)."""
        stats: dict[int, tuple[int, int, int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (st := _stat(int(entry))) is not None:
                stats[int(entry)] = st
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in stats.items():
            children.setdefault(ppid, []).append(pid)
        out, todo = {}, [self.hub_pid]
        while todo:
            pid = todo.pop()
            if pid in stats:
                out[pid] = stats[pid]
                todo.extend(children.get(pid, []))
        return out

    def _owner(self, pid: int) -> str | None:
        """The student whose home folder is this process's working directory."""
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            return None
        try:
            return cwd.relative_to(self.homes).parts[0]
        except (ValueError, IndexError):
            return None

    def sample(self) -> None:
        tree = self.tree()
        per_student: dict[str, int] = {}
        servers: dict[str, int] = {}
        hub_rss = 0
        with self.lock:
            for pid, (ppid, start, rss) in tree.items():
                known = self.seen.get(pid)
                if known is None or known.start != start:
                    if pid == self.hub_pid:
                        role = "hub"
                    elif ppid == self.hub_pid and (who := self._owner(pid)):
                        role = f"server:{who}"
                    elif ppid == self.hub_pid:
                        role = "proxy"
                    else:
                        parent = self.seen.get(ppid)
                        owner = parent.role.split(":", 1)[1] if parent and ":" in parent.role else None
                        role = f"kernel:{owner}" if owner else "other"
                    known = self.seen[pid] = Proc(pid, start, role)
                if known.role in ("hub", "proxy"):
                    hub_rss += rss
                elif ":" in known.role:
                    who = known.role.split(":", 1)[1]
                    per_student[who] = per_student.get(who, 0) + rss
                    if known.role.startswith("server:"):
                        servers[who] = rss
            for who, rss in per_student.items():
                self.peak_student[who] = max(self.peak_student.get(who, 0), rss)
            self.peak_hub = max(self.peak_hub, hub_rss)
            self.peak_total = max(self.peak_total, hub_rss + sum(per_student.values()))
            self.last_servers = servers
            # proportional set size: shared pages (the one Python install) counted once
            pss_total = sum(_pss_kb(pid) for pid in tree)
            self.peak_pss_total_kb = max(self.peak_pss_total_kb, pss_total)
            available = _mem_available_mb()
            if available is not None:
                self.min_available_mb = min(self.min_available_mb, available)
                if available < self.memory_floor_mb:
                    self.memory_low = True

    def alive(self) -> list[Proc]:
        out = []
        with self.lock:
            for proc in self.seen.values():
                st = _stat(proc.pid)
                if st is not None and st[1] == proc.start and not _zombie(proc.pid):
                    out.append(proc)
        return out


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _mem_available_mb() -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return None


def stop_processes(procs: list[Proc], grace: float = 10) -> None:
    """SIGTERM each process we started (by pid), then SIGKILL the ones still there."""
    for proc in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        left = [
            p for p in procs if (st := _stat(p.pid)) is not None and st[1] == p.start and not _zombie(p.pid)
        ]
        if not left:
            return
        time.sleep(0.2)
    for proc in procs:
        st = _stat(proc.pid)
        if st is not None and st[1] == proc.start:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return raw[raw.rindex(")") + 2] == "Z"


# -- the students ---------------------------------------------------------------------------------


@dataclass
class Student:
    name: str
    token: str = ""
    login_s: float | None = None
    start_s: float | None = None
    notebooks: list[dict[str, Any]] = field(default_factory=list)
    failure: dict[str, Any] | None = None

    def fail(self, stage: str, error: str) -> None:
        if self.failure is None:
            self.failure = {"student": self.name, "stage": stage, "error": error[-1500:]}


async def log_in(httpx: Any, public: str, student: Student, password: str) -> None:
    """The student types their name and the class password into the hub's login form."""
    async with httpx.AsyncClient(base_url=public, timeout=60, follow_redirects=False) as web:
        t0 = time.monotonic()
        page = await web.get("/hub/login")
        match = re.search(r'name="_xsrf"\s+value="([^"]+)"', page.text)
        if page.status_code != 200 or not match:
            raise RuntimeError(f"login form: HTTP {page.status_code}, no _xsrf field")
        done = await web.post(
            "/hub/login", data={"username": student.name, "password": password, "_xsrf": match.group(1)}
        )
        if done.status_code != 302 or not any(k.startswith("jupyterhub-session") for k in web.cookies):
            raise RuntimeError(f"login refused: HTTP {done.status_code}")
        student.login_s = time.monotonic() - t0


async def start_server(httpx: Any, public: str, student: Student, deadline: float) -> None:
    """Start the student's server with their own token and wait until it answers via the proxy."""
    headers = {"Authorization": f"token {student.token}"}
    async with httpx.AsyncClient(base_url=public, headers=headers, timeout=60) as api:
        t0 = time.monotonic()
        r = await api.post(f"/hub/api/users/{student.name}/server")
        if r.status_code not in (201, 202):
            raise RuntimeError(f"start request: HTTP {r.status_code} {r.text[:300]}")
        while True:
            model = (await api.get(f"/hub/api/users/{student.name}")).json()
            server = (model.get("servers") or {}).get("")
            if server and server.get("ready"):
                break
            if not server and time.monotonic() - t0 > 5:
                raise RuntimeError(f"the server stopped while starting: {model.get('pending')!r}")
            if time.monotonic() > deadline:
                raise TimeoutError("the server did not become ready in time")
            await asyncio.sleep(0.5)
        while True:  # ready in the hub's eyes; now reachable through the proxy with the token
            with contextlib.suppress(httpx.HTTPError):
                if (await api.get(f"/user/{student.name}/api/status")).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise TimeoutError("the server is ready but does not answer through the proxy")
            await asyncio.sleep(0.3)
        student.start_s = time.monotonic() - t0


async def run_notebooks(
    public: str, student: Student, notebooks: list[str], report: Path, cell_timeout: int, deadline: float
) -> None:
    """Run the notebooks in the student's server, in a process of the student's own."""
    env = dict(os.environ, CLASSROOM_TOKEN=student.token)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "_student",
        "--url",
        f"{public}/user/{student.name}/",
        "--report",
        str(report),
        "--cell-timeout",
        str(cell_timeout),
        *notebooks,
    ]
    proc = await asyncio.create_subprocess_exec(
        *cmd, env=env, stdout=subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, start_new_session=True
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout=max(1.0, deadline - time.monotonic()))
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise TimeoutError("the notebooks did not finish in time") from None
    except asyncio.CancelledError:  # the run was stopped: so is this student's runner
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    if report.exists():
        student.notebooks = json.loads(report.read_text())
    bad = [nb for nb in student.notebooks if not nb["ok"]]
    if bad:
        raise NotebookFailure("; ".join(f"{nb['notebook']}: {nb['error']}" for nb in bad), bad)
    if proc.returncode != 0 or len(student.notebooks) != len(notebooks):
        raise RuntimeError(f"the notebook runner exited with {proc.returncode}: {err.decode()[-1000:]}")


class NotebookFailure(RuntimeError):
    def __init__(self, message: str, details: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.details = details


async def one_student(
    httpx: Any,
    public: str,
    student: Student,
    password: str,
    notebooks: list[str],
    run: Path,
    cell_timeout: int,
    start_deadline: float,
    deadline: float,
) -> None:
    stage = "login"
    try:
        await log_in(httpx, public, student, password)
        stage = "server start"
        await start_server(httpx, public, student, start_deadline)
        log(f"{student.name}: logged in in {student.login_s:.1f} s, server ready in {student.start_s:.1f} s")
        stage = "notebooks"
        await run_notebooks(
            public, student, notebooks, run / "reports" / f"{student.name}.json", cell_timeout, deadline
        )
    except Exception as exc:  # every failure is recorded, none stops the class
        student.fail(stage, f"{type(exc).__name__}: {exc}")
        if isinstance(exc, NotebookFailure) and student.failure is not None:
            student.failure["notebooks"] = exc.details  # type: ignore[assignment]
        log(f"{student.name}: FAILED at {stage}")
    else:
        log(f"{student.name}: notebooks done")


async def classroom(
    sampler: Sampler | None,
    public: str,
    admin_token: str,
    password: str,
    students: list[Student],
    notebooks: list[str],
    run: Path,
    cell_timeout: int,
    timeout: float,
) -> None:
    import httpx

    t0 = time.monotonic()
    deadline = t0 + timeout
    admin = httpx.AsyncClient(
        base_url=f"{public}/hub/api", timeout=60, headers={"Authorization": f"token {admin_token}"}
    )
    async with admin:
        r = await admin.post("/users", json={"usernames": [s.name for s in students]})
        if r.status_code != 201:
            raise SetupError(f"creating the users: HTTP {r.status_code} {r.text[:300]}")
        for s in students:
            r = await admin.post(f"/users/{s.name}/tokens", json={"note": "classroom", "expires_in": 7200})
            if r.status_code != 201:
                raise SetupError(f"token for {s.name}: HTTP {r.status_code} {r.text[:300]}")
            s.token = r.json()["token"]
        log(f"{len(students)} users and tokens created; everyone logs in and starts at once")
        start_deadline = t0 + min(timeout, 60 + 10 * len(students))
        everyone = asyncio.ensure_future(
            asyncio.gather(
                *(
                    one_student(
                        httpx, public, s, password, notebooks, run, cell_timeout, start_deadline, deadline
                    )
                    for s in students
                )
            )
        )
        while not everyone.done():  # stop early if the machine runs low on memory
            if sampler is not None and sampler.memory_low:
                everyone.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await everyone
                running = sum(1 for s in students if s.start_s is not None)
                raise SetupError(
                    f"stopped: less than {sampler.memory_floor_mb} MB of memory left with "
                    f"{running} student servers up"
                )
            await asyncio.wait([everyone], timeout=1)
        everyone.result()

        # Everyone is done: stop the servers through the hub, as an instructor would at the end.
        async def stop(s: Student) -> None:
            with contextlib.suppress(httpx.HTTPError):
                await admin.delete(f"/users/{s.name}/server", timeout=60)

        await asyncio.wait_for(asyncio.gather(*(stop(s) for s in students)), timeout=120)


def start_hub(
    run: Path, chp: Path, env: dict[str, str], hub_log: Any, students: int, timeout: float = 120
) -> tuple[subprocess.Popen[bytes] | None, Sampler | None, str]:
    """Write the config with fresh free ports, start the hub and wait until it answers via its proxy."""
    import httpx

    public_port, hub_port, proxy_api_port = free_ports(3)
    spawner_args = ["--ServerApp.allow_root=True"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    (run / "jupyterhub_config.py").write_text(
        HUB_CONFIG.format(
            run=str(run),
            public_port=public_port,
            hub_port=hub_port,
            proxy_api_port=proxy_api_port,
            chp=str(chp),
            singleuser=str(BIN / "jupyterhub-singleuser"),
            spawner_args=spawner_args,
            course=COURSE_FOLDER,
            start_timeout=int(60 + 10 * students),
        )
    )
    public = f"http://127.0.0.1:{public_port}"
    hub = subprocess.Popen(
        [str(BIN / "jupyterhub"), "-f", str(run / "jupyterhub_config.py")],
        cwd=run,
        env=env,
        stdout=hub_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    sampler = Sampler(hub.pid, run / "homes")
    sampler.start()
    deadline = time.monotonic() + timeout
    while hub.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            r = httpx.get(f"{public}/hub/api/", timeout=5)
            if r.status_code == 200 and "version" in r.json():
                return hub, sampler, public
        time.sleep(0.5)
    stop_hub(hub, sampler)
    return None, None, public


def stop_hub(hub: subprocess.Popen[bytes], sampler: Sampler) -> None:
    """Stop the hub (it stops its proxy and the servers), then anything of its tree still alive."""
    sampler.stop()
    sampler.join(timeout=5)
    with contextlib.suppress(Exception):
        sampler.sample()
    procs = sampler.alive()
    hub.terminate()
    try:
        hub.wait(timeout=30)
    except subprocess.TimeoutExpired:
        hub.kill()
        hub.wait()
    stop_processes([p for p in procs if p.pid != hub.pid])


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (linear interpolation between closest ranks)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def resolve_notebooks(prefixes: list[str]) -> list[str]:
    names = []
    for prefix in prefixes:
        found = sorted((ROOT / "notebooks").glob(f"{prefix}_*.ipynb"))
        if not found:
            raise SetupError(f"no notebook notebooks/{prefix}_*.ipynb")
        names.append(found[0].name)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument(
        "--notebooks",
        default=",".join(DEFAULT_NOTEBOOKS),
        help="comma-separated notebook numbers (default: 00,06,11)",
    )
    parser.add_argument("--out", default=str(ROOT / "build" / "classroom.json"))
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds for the whole class (default: 180 + 25 per student)",
    )
    parser.add_argument("--cell-timeout", type=int, default=300)
    parser.add_argument("--keep", action="store_true", help="keep the run folder (homes, logs) afterwards")
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students must be at least 1")
    timeout = args.timeout or 180 + 25 * args.students
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    try:
        notebooks = resolve_notebooks([p.strip() for p in args.notebooks.split(",") if p.strip()])
        chp = ensure_proxy(build)
    except SetupError as exc:
        print(f"classroom: {exc}", file=sys.stderr)
        return 2
    (build / "classroom").mkdir(exist_ok=True)
    run = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=build / "classroom"))
    (run / "homes").mkdir()
    (run / "reports").mkdir()
    admin_token, password = secrets.token_hex(32), secrets.token_urlsafe(12)
    env = dict(os.environ, CLASSROOM_ADMIN_TOKEN=admin_token, CLASSROOM_PASSWORD=password)
    env.pop("CONFIGPROXY_AUTH_TOKEN", None)  # the hub makes a fresh one for its own proxy
    students = [Student(f"student{i:02d}") for i in range(1, args.students + 1)]
    subprocess.run(
        [sys.executable, "-c", "import matplotlib.font_manager"],
        timeout=300,
        check=False,
        env=dict(os.environ, MPLCONFIGDIR=str(run / "mpl-cache")),
        capture_output=True,
    )
    hub_log = open(run / "jupyterhub.log", "ab")  # closed in finally
    t0 = time.monotonic()
    hub, sampler, public = None, None, ""
    setup_error = None

    def interrupted(signum: int, _frame: object) -> None:
        raise Interrupted(f"interrupted by signal {signal.Signals(signum).name}")

    signal.signal(signal.SIGTERM, interrupted)  # still stop everything and write the report
    try:
        for attempt in range(1, 4):  # a port taken between choosing and binding it: try new ones
            hub, sampler, public = start_hub(run, chp, env, hub_log, args.students)
            if hub is not None:
                break
            log(f"JupyterHub did not come up (attempt {attempt}); trying other ports")
        else:
            raise SetupError("JupyterHub did not start:\n" + (run / "jupyterhub.log").read_text()[-3000:])
        log(
            f"JupyterHub on {public} (run folder {run.relative_to(ROOT)}) "
            f"up after {time.monotonic() - t0:.1f} s; "
            f"{args.students} students, notebooks {', '.join(notebooks)}"
        )
        asyncio.run(
            classroom(
                sampler, public, admin_token, password, students, notebooks, run, args.cell_timeout, timeout
            )
        )
    except SetupError as exc:
        setup_error = str(exc)
    except (Exception, KeyboardInterrupt) as exc:  # reported in the JSON, the processes still stopped
        setup_error = f"{type(exc).__name__}: {exc}"
    finally:
        if hub is not None and sampler is not None:
            stop_hub(hub, sampler)
        hub_log.close()
    if sampler is None:
        sampler = Sampler(-1, run / "homes")
    wall = time.monotonic() - t0

    failures = [s.failure for s in students if s.failure]
    seen: set[str] = set()
    for failure in failures:  # one traceback per distinct error is enough to read
        for nb in failure.get("notebooks", []):  # type: ignore[union-attr]
            if nb.get("error") in seen:
                nb.pop("traceback", None)
            seen.add(nb.get("error", ""))
    if setup_error:
        failures.insert(0, {"student": "*", "stage": "setup", "error": setup_error[-3000:]})
    starts = [s.start_s for s in students if s.start_s is not None]
    peaks = [
        sampler.peak_student.get(s.name, 0) * PAGE_SIZE / 2**20
        for s in students
        if s.name in sampler.peak_student
    ]
    per_notebook: dict[str, list[float]] = {}
    for s in students:
        for nb in s.notebooks:
            if nb["ok"]:
                per_notebook.setdefault(nb["notebook"], []).append(nb["seconds"])
    result = {
        "students": len(students),
        "succeeded": sum(1 for s in students if s.failure is None and _all_ok(s, notebooks)),
        "start_p50_s": _round(percentile(starts, 50)),
        "start_p95_s": _round(percentile(starts, 95)),
        "rss_per_student_mb": _round(statistics.fmean(peaks)) if peaks else None,
        "failures": failures,
        "rss_per_student_max_mb": _round(max(peaks)) if peaks else None,
        "hub_and_proxy_rss_mb": _round(sampler.peak_hub * PAGE_SIZE / 2**20),
        "peak_total_rss_mb": _round(sampler.peak_total * PAGE_SIZE / 2**20),
        "peak_total_pss_mb": _round(sampler.peak_pss_total_kb / 1024),
        "min_available_memory_mb": _round(sampler.min_available_mb)
        if sampler.min_available_mb != float("inf")
        else None,
        "login_p50_s": _round(percentile([s.login_s for s in students if s.login_s is not None], 50)),
        "notebooks": notebooks,
        "notebook_p50_s": {k: _round(percentile(v, 50)) for k, v in per_notebook.items()},
        "notebook_max_s": {k: _round(max(v)) for k, v in per_notebook.items()},
        "wall_s": _round(wall),
        "machine": {
            "cpus": os.cpu_count(),
            "memory_gb": _round(_mem_total_gb()),
            "python": platform.python_version(),
        },
        "versions": _versions(),
        "leftover_processes": [p.role for p in sampler.alive()],
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    log(
        f"{result['succeeded']}/{result['students']} students got through in {wall:.0f} s; "
        f"start p50 {result['start_p50_s']} s, p95 {result['start_p95_s']} s, "
        f"{result['rss_per_student_mb']} MB per student -> {out}"
    )
    for failure in failures:
        log(f"FAILED {failure['student']} at {failure['stage']}: {failure['error'][:500]}")
    if args.keep or setup_error:
        log(f"run folder kept: {run}")
    else:
        shutil.rmtree(run, ignore_errors=True)
    if setup_error:
        return 2
    return 0 if not failures else 1


def _all_ok(student: Student, notebooks: list[str]) -> bool:
    return len(student.notebooks) == len(notebooks) and all(nb["ok"] for nb in student.notebooks)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _mem_total_gb() -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    return None


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    out = {name: version(name) for name in ("jupyterhub", "jupyter_server", "jupyterlab", "nbclient")}
    with contextlib.suppress(OSError, ValueError, KeyError):
        pkg = ROOT / "build" / "chp" / "node_modules" / "configurable-http-proxy" / "package.json"
        out["configurable-http-proxy"] = json.loads(pkg.read_text())["version"]
    return out


# -- one student's notebook runner (a process of its own) --------------------------------------------


def student_main(argv: list[str]) -> int:
    """``classroom.py _student --url URL --report FILE NOTEBOOK...``: run notebooks in a server.

    The token comes from ``CLASSROOM_TOKEN``. ``GatewayClient`` is a per-process singleton,
    which is one reason each student runs in a process of their own.
    """
    parser = argparse.ArgumentParser(prog="classroom.py _student")
    parser.add_argument("--url", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--cell-timeout", type=int, default=300)
    parser.add_argument("notebooks", nargs="+")
    args = parser.parse_args(argv)
    token = os.environ["CLASSROOM_TOKEN"]

    import httpx
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from remote_kernel import RemoteKernelManager, configure_gateway  # tools/classroom/

    configure_gateway(args.url, token)
    results = []
    with httpx.Client(
        base_url=args.url.rstrip("/"), headers={"Authorization": f"token {token}"}, timeout=60
    ) as contents:
        for name in args.notebooks:
            path = f"{COURSE_FOLDER}/{name}"
            t0 = time.monotonic()
            entry: dict[str, Any] = {"notebook": name, "ok": False, "error": "", "seconds": None}
            try:
                r = contents.get(f"/api/contents/{path}", params={"content": "1"})
                r.raise_for_status()
                nb = nbformat.from_dict(r.json()["content"])
                km = RemoteKernelManager(notebook_path=path)
                NotebookClient(
                    nb,
                    km=km,
                    timeout=args.cell_timeout,
                    startup_timeout=120,
                    resources={"metadata": {"path": COURSE_FOLDER}},
                ).execute()
                problems = [
                    f"stderr: {o['text'][:200]!r}"
                    for c in nb.cells
                    if c.cell_type == "code"
                    for o in c.outputs
                    if o.get("name") == "stderr"
                ]
                r = contents.put(
                    f"/api/contents/{path}", json={"type": "notebook", "format": "json", "content": nb}
                )
                r.raise_for_status()
                entry.update(ok=not problems, error="; ".join(problems)[:1000])
            except CellExecutionError as exc:
                text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
                failing = next(
                    (
                        c
                        for c in nb.cells
                        if c.cell_type == "code"
                        and any(o.get("output_type") == "error" for o in c.get("outputs", []))
                    ),
                    None,
                )
                where = (
                    failing.source.strip().splitlines()[0][:120]
                    if failing and failing.source.strip()
                    else "?"
                )
                entry["error"] = f"cell `{where}` raised {exc.ename}: {exc.evalue}"[:1000]
                entry["traceback"] = text.strip().splitlines()[-40:]
            except Exception as exc:  # recorded; the next notebook still runs
                entry["error"] = f"{type(exc).__name__}: {exc}"[:1000]
            entry["seconds"] = round(time.monotonic() - t0, 2)
            results.append(entry)
    Path(args.report).write_text(json.dumps(results, indent=2))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_student":
        sys.path.insert(0, str(Path(__file__).resolve().parent / "classroom"))
        raise SystemExit(student_main(sys.argv[2:]))
    raise SystemExit(main())
