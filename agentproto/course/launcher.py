"""``agentproto lab`` — copy the course into a folder of your own and open JupyterLab there.

Usage::

    agentproto lab [--dir DIR] [--port N] [--no-browser] [--print-command]

After ``pip install "agentproto[course]"`` this is the whole setup, on any OS. The first run
copies the course (the notebooks and their README) into *DIR* — by default
``~/agentproto-course`` — and starts JupyterLab there on ``127.0.0.1`` with
``00_start_here.ipynb`` open. Later runs copy only what is missing (a notebook added by an
upgrade, one the learner deleted to start over) and never overwrite a file that is already
there: a learner's edited notebook is kept, and the command says which files it kept.

Where the course comes from:

* an installed wheel ships the notebooks inside the package, as ``agentproto/course/notebooks``
  (read with :mod:`importlib.resources`);
* a clone of the repository (an editable install) has them in ``notebooks/`` at its root.

JupyterLab opens without the "Would you like to get notified about official Jupyter news?"
prompt: :func:`ensure_lab_settings` installs the kit's defaults (:data:`LAB_OVERRIDES`) as
``{sys.prefix}/share/jupyter/lab/settings/overrides.d/agentproto.json``. That folder is
JupyterLab's per-package defaults folder: every JupyterLab, single-user hub server or Voilà
started from this environment reads it, a learner's own settings still win over it, and it
touches no other package's ``overrides.json``. Where that folder cannot be written (a
read-only system Python), the command points JupyterLab at a private copy of the settings
folder instead (``--LabApp.app_settings_dir``).

``--install-settings`` only installs those defaults (``make lab`` runs it before JupyterLab).
``--print-command`` does everything up to starting JupyterLab (it copies the course) and then
prints the command it would run instead of running it.

Exit status: the JupyterLab process's, ``0`` after ``--print-command``, ``2`` when the course
files cannot be found or the folder cannot be written.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = [
    "configure",
    "run",
    "LAB_OVERRIDES",
    "FIRST_NOTEBOOK",
    "CopyReport",
    "course_source",
    "course_files",
    "copy_course",
    "default_dir",
    "ensure_lab_settings",
    "lab_command",
]

#: The notebook JupyterLab opens first.
FIRST_NOTEBOOK = "00_start_here.ipynb"
#: The kit's JupyterLab defaults: no news prompt, no update check (the course runs offline).
LAB_OVERRIDES: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}
#: The file name of the kit's defaults inside JupyterLab's ``overrides.d`` folder.
OVERRIDES_NAME = "agentproto.json"
_COURSE_SUFFIXES = (".ipynb", ".md")


def configure(parser: argparse.ArgumentParser) -> None:
    """Register the ``lab`` arguments on *parser* (called by :mod:`agentproto.cli`)."""
    parser.add_argument(
        "--dir", metavar="DIR", default=None, help=f"the learner's course folder (default: {default_dir()})"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8888,
        help="the port JupyterLab listens on, on 127.0.0.1 (default: 8888; "
        "JupyterLab moves to the next free one if it is taken)",
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="do not open a web browser (open the printed link yourself)"
    )
    parser.add_argument(
        "--print-command",
        action="store_true",
        help="copy the course, then print the JupyterLab command instead of running it",
    )
    parser.add_argument(
        "--install-settings",
        action="store_true",
        help="only install the kit's JupyterLab defaults (no news prompt) into this environment, then exit",
    )
    parser.set_defaults(handler=run)


def default_dir() -> Path:
    """``~/agentproto-course``: easy to find in any file browser, on every OS."""
    return Path.home() / "agentproto-course"


def course_source() -> Traversable | None:
    """The folder the course is copied from: the wheel's, else a checkout's ``notebooks/``."""
    packaged = resources.files("agentproto.course").joinpath("notebooks")
    if packaged.is_dir() and any(p.name.endswith(".ipynb") for p in packaged.iterdir()):
        return packaged
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "notebooks").is_dir():
        return checkout / "notebooks"
    return None


def course_files(source: Traversable) -> list[Traversable]:
    """The files of the course: every notebook and the README, sorted by name."""
    return sorted(
        (p for p in source.iterdir() if p.is_file() and p.name.endswith(_COURSE_SUFFIXES)),
        key=lambda p: p.name,
    )


@dataclass
class CopyReport:
    """What :func:`copy_course` did, file name by file name."""

    dest: Path
    copied: list[str] = field(default_factory=list)
    #: already there and identical to the shipped file
    unchanged: list[str] = field(default_factory=list)
    #: already there and different from the shipped file (edited, or from an older version): kept
    kept: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = []
        if self.copied:
            lines.append(f"Copied {len(self.copied)} course file(s) into {self.dest}.")
        else:
            lines.append(f"The course is in {self.dest}; nothing new to copy.")
        if self.kept:
            lines.append(
                f"Kept your own version of {len(self.kept)} file(s) (never overwritten): "
                + ", ".join(self.kept)
            )
            lines.append("  To get a fresh copy of one, delete or rename it and run `agentproto lab` again.")
        return "\n".join(lines)


def copy_course(dest: Path, source: Traversable | None = None) -> CopyReport:
    """Copy the course files that *dest* lacks; never touch one that is there already."""
    source = course_source() if source is None else source
    if source is None:
        raise FileNotFoundError("the course notebooks are not in this installation of agentproto")
    dest.mkdir(parents=True, exist_ok=True)
    report = CopyReport(dest=dest)
    for item in course_files(source):
        target = dest / item.name
        data = item.read_bytes()
        if target.exists():
            (report.unchanged if target.read_bytes() == data else report.kept).append(item.name)
            continue
        partial = target.with_name(f".{item.name}.partial")
        partial.write_bytes(data)  # then renamed: an interrupted copy leaves no half notebook
        os.replace(partial, target)
        report.copied.append(item.name)
    return report


def _settings_dir(prefix: str | os.PathLike[str]) -> Path:
    return Path(prefix) / "share" / "jupyter" / "lab" / "settings"


def ensure_lab_settings(prefix: str | os.PathLike[str] = sys.prefix) -> Path | None:
    """Install :data:`LAB_OVERRIDES` into the environment's JupyterLab defaults folder.

    Returns the file's path, or ``None`` if the folder cannot be written (then pass
    :func:`private_settings_dir` to JupyterLab instead).
    """
    path = _settings_dir(prefix) / "overrides.d" / OVERRIDES_NAME
    text = json.dumps(LAB_OVERRIDES, indent=2, sort_keys=True) + "\n"
    try:
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def private_settings_dir(dest: Path, prefix: str | os.PathLike[str] = sys.prefix) -> Path:
    """A copy of the environment's JupyterLab settings folder plus the kit's defaults, in *dest*."""
    folder = dest / ".agentproto" / "lab-settings"
    shared = _settings_dir(prefix)
    if shared.is_dir():
        shutil.copytree(shared, folder, dirs_exist_ok=True)
    ensure = folder / "overrides.d" / OVERRIDES_NAME
    ensure.parent.mkdir(parents=True, exist_ok=True)
    ensure.write_text(json.dumps(LAB_OVERRIDES, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return folder


def lab_command(
    dest: Path, *, port: int = 8888, open_browser: bool = True, app_settings_dir: Path | None = None
) -> list[str]:
    """The JupyterLab command line for the course in *dest* (bound to 127.0.0.1)."""
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        f"--ServerApp.root_dir={dest}",
    ]
    if not open_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # classroom containers often run as root
        cmd.append("--allow-root")
    if app_settings_dir is not None:
        cmd.append(f"--LabApp.app_settings_dir={app_settings_dir}")
    if (dest / FIRST_NOTEBOOK).exists():
        cmd.append(str(dest / FIRST_NOTEBOOK))
    return cmd


def run(args: argparse.Namespace) -> int:
    """The ``lab`` handler: returns the process exit code."""
    if args.install_settings:
        path = ensure_lab_settings()
        print(f"JupyterLab defaults: {path}" if path else f"cannot write {_settings_dir(sys.prefix)}")
        return 0 if path else 2
    dest = Path(args.dir).expanduser().resolve() if args.dir else default_dir()
    try:
        report = copy_course(dest)
    except FileNotFoundError as exc:
        print(f'agentproto lab: {exc}; reinstall with: pip install "agentproto[course]"', file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"agentproto lab: cannot write the course into {dest}: {exc}", file=sys.stderr)
        return 2
    print(report.summary())
    settings = None if ensure_lab_settings() else private_settings_dir(dest)
    cmd = lab_command(dest, port=args.port, open_browser=not args.no_browser, app_settings_dir=settings)
    if args.print_command:
        print(shlex.join(cmd))
        return 0
    print(f"Starting JupyterLab on http://127.0.0.1:{args.port} in {dest}. Ctrl-C stops it.", flush=True)
    proc = subprocess.Popen(cmd, cwd=dest)
    try:
        return proc.wait()
    except KeyboardInterrupt:  # JupyterLab got the Ctrl-C too and shuts down by itself
        try:
            return proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.terminate()
            return proc.wait()


if __name__ == "__main__":  # pragma: no cover - `python -m agentproto.course.launcher`
    _parser = argparse.ArgumentParser(prog="agentproto lab", description=__doc__.splitlines()[0])
    configure(_parser)
    raise SystemExit(run(_parser.parse_args()))
