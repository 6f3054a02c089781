#!/usr/bin/env python
"""``make wheelhouse [EXTRAS=course] [WHEELHOUSE=build/wheelhouse]``: a class's install, offline.

Usage: ``python tools/wheelhouse.py [--out build/wheelhouse] [--extras course[,classroom]]``

Writes into ``--out`` every wheel that ``pip install "agentproto[EXTRAS]"`` needs, for the
platform and Python running this script, at exactly the versions pinned in
``requirements/lock.txt``:

1. the agentproto wheel, built from this tree (without build isolation when hatchling is
   installed here, else pip builds it in an isolated environment from the index);
2. every dependency, resolved by ``pip wheel -c requirements/lock.txt``: a release that has a
   wheel for this platform is saved as it is (pip prefers the wheel of the pinned version), one
   that is only an sdist is built into a wheel here, so the offline install never builds from
   source (those built here are listed);
3. ``lock.txt`` (a copy of the lock file) and ``README.txt``: how to install from the folder
   and for which OS, CPU and Python it was built.

Then it checks what it wrote: no sdist, every wheel pinned by the lock at that version (a
package the lock does not list, e.g. one only this OS needs, is reported, not refused).

A laptop installs with no network (see README.txt)::

    python3.11 -m venv agentproto-env
    agentproto-env/bin/python -m pip install --no-index --find-links wheelhouse "agentproto[course]"

Only the wheels of an earlier run (``*.whl``), ``README.txt`` and ``lock.txt`` are removed
from ``--out`` first. The wheels come from pip's cache where it has them. Exit status: ``0``;
``1`` if pip failed (its output is printed) or a wheel is not what the lock pins.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
DEFAULT_OUT = ROOT / "build" / "wheelhouse"
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
#: The glibc that the legacy manylinux tags stand for.
_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


def canonical(name: str) -> str:
    """A distribution name as the lock and the index compare it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_lock(path: Path = LOCK) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonical(name)] = version.strip()
    return pins


def parse_wheel(path: Path) -> tuple[str, str, list[str]]:
    """``(canonical name, version, platform tags)`` of a wheel file name (PEP 427)."""
    parts = path.name[: -len(".whl")].split("-")
    return canonical(parts[0]), parts[1], parts[-1].split(".")


def glibc_needed(wheel: Path) -> tuple[int, int] | None:
    """The oldest glibc on which a manylinux wheel installs (``None`` for any other wheel)."""
    found = []
    for tag in parse_wheel(wheel)[2]:
        if m := re.match(r"manylinux_(\d+)_(\d+)_", tag):
            found.append((int(m[1]), int(m[2])))
        elif tag.split("_")[0] in _LEGACY_MANYLINUX:
            found.append(_LEGACY_MANYLINUX[tag.split("_")[0]])
    return min(found) if found else None  # a wheel with several tags installs where any one does


def pip(args: list[str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*PIP, *args], capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
    return result


def build_agentproto(out: Path) -> Path | None:
    # hatchling here: no download; otherwise pip fetches it into an isolated build environment
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    result = pip(["wheel", "--no-deps", *isolation, "-q", "-w", str(out), str(ROOT)])
    if result.returncode != 0:
        return None
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    return out / f"agentproto-{version}-py3-none-any.whl"


def collect(out: Path, wheel: Path, extras: str) -> list[str] | None:
    """Every dependency of ``wheel[extras]`` as a wheel in ``out``; returns those built here."""
    requirement = f"{wheel}[{extras}]" if extras else str(wheel)
    args = ["wheel", "--progress-bar", "off", "-c", str(LOCK), "-w", str(out), requirement]
    result = pip(args)
    if result.returncode != 0:
        return None
    return sorted(set(re.findall(r"Building wheel for (\S+)", result.stdout + result.stderr)))


def readme(wheels: list[Path], extras: str, built_here: list[str], unpinned: list[str]) -> str:
    major, minor = sys.version_info[:2]
    windows = os.name == "nt"
    python = f"py -{major}.{minor}" if windows else f"python{major}.{minor}"
    scripts = "agentproto-env\\Scripts\\" if windows else "agentproto-env/bin/"
    spec = f"agentproto[{extras}]" if extras else "agentproto"
    size = sum(w.stat().st_size for w in wheels) / 1e6
    abis = sorted({w.name.split("-")[-2] for w in wheels} - {"none"})
    libc, libc_version = platform.libc_ver()
    needs = {w: v for w in wheels if (v := glibc_needed(w))}
    glibc = max(needs.values(), default=None)
    lines = [
        f"agentproto wheelhouse: {spec}, for an install with no network",
        "",
        f"Built {datetime.date.today().isoformat()} by tools/wheelhouse.py (make wheelhouse) for",
        f"  Python    {platform.python_implementation()} {platform.python_version()}"
        f" (any {major}.{minor}.x of {platform.python_implementation()})",
        f"  platform  {sysconfig.get_platform()} ({platform.system()} {platform.machine()}"
        + (f", {libc} {libc_version}" if libc else "")
        + ")",
        f"  ABI       {', '.join(abis) or 'none (pure Python only)'}",
    ]
    if glibc:
        newest = ", ".join(parse_wheel(w)[0] for w, v in needs.items() if v == glibc)
        lines.append(f"  needs     glibc >= {glibc[0]}.{glibc[1]} on the laptop (for {newest})")
    lines += [
        "",
        "It installs only on laptops with this OS, CPU and Python minor version (and glibc, on Linux);",
        'elsewhere pip stops with "No matching distribution". For other laptops, run `make wheelhouse`',
        "on a machine like them.",
        "",
        f"{len(wheels)} wheels, {size:.0f} MB, every one at the version pinned in lock.txt (a copy of",
        "the repository's requirements/lock.txt).",
    ]
    if built_here:
        lines.append(f"Built here from source (they have no wheel on the index): {', '.join(built_here)}.")
    if unpinned:
        lines.append(f"Not in the lock (resolved by pip for this platform): {', '.join(unpinned)}.")
    lines += [
        "",
        "Install (copy this folder to the laptop as `wheelhouse`; no network is used):",
        "",
        f"  {python} -m venv agentproto-env",
        f'  {scripts}python -m pip install --no-index --find-links wheelhouse "{spec}"',
        f"  {scripts}agentproto doctor        # every required check [OK]",
        f"  {scripts}agentproto lab           # copies the course to ~/agentproto-course, opens JupyterLab",
        "",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the wheelhouse folder")
    parser.add_argument("--extras", default="course", help="extras of agentproto, comma-separated")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    extras = ",".join(e.strip() for e in args.extras.split(",") if e.strip())
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.whl"), out / "README.txt", out / "lock.txt"]:
        stale.unlink(missing_ok=True)

    start = time.monotonic()
    print(
        f"wheelhouse: agentproto[{extras}] for Python {platform.python_version()} on "
        f"{sysconfig.get_platform()}, pinned by requirements/lock.txt -> {out}",
        flush=True,
    )
    wheel = build_agentproto(out)
    if wheel is None or not wheel.exists():
        print("wheelhouse: building the agentproto wheel failed", file=sys.stderr)
        return 1
    built_here = collect(out, wheel, extras)
    if built_here is None:
        print("wheelhouse: pip could not collect the wheels (is the index reachable?)", file=sys.stderr)
        return 1

    pins, wheels = read_lock(), sorted(out.glob("*.whl"))
    sdists = [p.name for p in out.iterdir() if p.name.endswith((".tar.gz", ".zip"))]
    wrong, unpinned = [], []
    for path in wheels:
        name, version, _ = parse_wheel(path)
        if name == "agentproto":
            continue
        if name not in pins:
            unpinned.append(f"{name} {version}")
        elif pins[name] != version:
            wrong.append(f"{path.name} (the lock pins {pins[name]})")
    if sdists or wrong:
        print(f"wheelhouse: not what the lock pins: {', '.join(sdists + wrong)}", file=sys.stderr)
        return 1
    shutil.copyfile(LOCK, out / "lock.txt")
    (out / "README.txt").write_text(readme(wheels, extras, built_here, unpinned), encoding="utf-8")

    size = sum(w.stat().st_size for w in wheels) / 1e6
    print(f"wheelhouse: {len(wheels)} wheels, {size:.0f} MB, in {time.monotonic() - start:.0f} s -> {out}")
    if built_here:
        print(f"wheelhouse: built from sdists here: {', '.join(built_here)}")
    if unpinned:
        print(f"wheelhouse: not pinned by the lock: {', '.join(unpinned)}")
    print(f"wheelhouse: how to install from it: {out / 'README.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
