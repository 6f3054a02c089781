"""The course installed from the wheel, as a learner without a clone gets it.

``pip install "agentproto[course]"`` into a clean venv outside the checkout (the way ``make
venv`` builds it, see envs.py): the environment stays within the issue's 500 MB with no
Playwright or pytest, and ``agentproto lab`` starts JupyterLab on a copy of the course it made
itself. The browser check (tests/browser/) runs every notebook in this same environment, copied
out of the repository, in that JupyterLab.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.envs import ROOT, clean_env, installed, run, shared_course_env, site_packages, size_mb
from tests.servers import free_port, serving_process

httpx = pytest.importorskip("httpx")

#: The issue's bound for a `.[course]` environment's site-packages, not counting the venv's
#: own pip and setuptools.
MAX_COURSE_SITE_PACKAGES_MB = 500
#: What a notebook imports beyond the course layer: gRPC and the official SDK (11 and 17).
NOTEBOOK_IMPORTS = {"agentproto", "jupyterlab", "ipywidgets", "matplotlib", "numpy", "networkx", "starlette"}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def course_env(tmp_path_factory) -> Path:
    return shared_course_env(tmp_path_factory)


def test_the_course_environment_is_small_enough_and_has_no_test_tools(course_env):
    names = installed(course_env)
    assert NOTEBOOK_IMPORTS | {"grpcio", "a2a_sdk"} <= names, sorted(names)
    assert not names & {"playwright", "pytest", "nbval", "hypothesis", "ag_ui_protocol", "voila"}
    size = size_mb(site_packages(course_env), without=("pip", "setuptools"))
    print(f"course install: {size:.1f} MB of site-packages (pip and setuptools left out)")
    assert size <= MAX_COURSE_SITE_PACKAGES_MB, f"the course environment is {size:.1f} MB"


#: Modules every kernel or JupyterLab start imports: each must be installed with its bytecode.
STARTUP_MODULES = (
    "matplotlib/pyplot.py",
    "ipykernel/kernelbase.py",
    "jupyter_server/serverapp.py",
    "agentproto/a2a/types.py",
)


def test_the_course_environment_is_installed_with_its_bytecode(course_env):
    """The install wrote the .pyc files (pip does by default, uv with --compile-bytecode, as the
    Makefile and envs.py ask): where Python may not write them at import (PYTHONDONTWRITEBYTECODE,
    a read-only site-packages) every kernel would otherwise compile matplotlib and IPython anew."""
    import importlib.util

    packages = site_packages(course_env)
    missing = [
        m for m in STARTUP_MODULES if not Path(importlib.util.cache_from_source(str(packages / m))).exists()
    ]
    assert not missing, f"installed without bytecode: {missing}"


def test_agentproto_lab_copies_the_course_and_starts_jupyterlab_from_the_wheel(course_env, tmp_path):
    dest, port = tmp_path / "my-course", free_port()
    env = clean_env(
        JUPYTER_TOKEN="wheel-test",
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "user-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
    )
    cmd = [
        str(course_env / "bin" / "agentproto"),
        "lab",
        "--dir",
        str(dest),
        "--port",
        str(port),
        "--no-browser",
    ]
    base, headers = f"http://127.0.0.1:{port}", {"Authorization": "token wheel-test"}
    log_path = tmp_path / "lab.log"
    with serving_process(
        cmd, cwd=tmp_path, env=env, log_path=log_path, ready_url=f"{base}/api/status", headers=headers
    ):
        listing = httpx.get(f"{base}/api/contents/", headers=headers, timeout=10).json()
        served = sorted(i["name"] for i in listing["content"] if i["name"].endswith(".ipynb"))
        assert served == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


def notebook_imports() -> set[str]:
    """The top-level modules any notebook's code imports (parsed, IPython syntax aside)."""
    import ast
    import json

    found: set[str] = set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            lines = "".join(cell["source"]).splitlines()
            code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
            tree = ast.parse(code.replace("await ", ""))  # top-level await is IPython's
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    found |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    found.add(node.module.split(".")[0])
    return found


def test_every_module_a_notebook_imports_is_in_the_course_environment(course_env):
    modules = sorted(notebook_imports())
    assert {"agentproto", "a2a", "matplotlib"} <= set(modules)  # the parse sees the imports (17: a2a)
    probe = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    result = run([str(course_env / "bin" / "python"), "-c", probe, *modules], cwd=course_env)
    assert result.returncode == 0, result.stderr[-2000:]
