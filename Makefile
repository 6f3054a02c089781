# agentproto — two commands do everything:
#   make lab    create .venv with the course (the `course` extra), open JupyterLab on the first notebook
#   make test   add the test tools and the official SDKs to .venv and run every test
# Only Python >= 3.11 and make are needed. Override the interpreter with `make PYTHON=python3.12`.
#
# The library itself needs no make: `pip install agentproto` is the base install (the AG-UI
# pipeline, `agentproto lint`, the A2A types and task machine); `agentproto[server]` adds the
# servers and clients, `agentproto[course]` everything the notebooks run.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements/lock.txt
# The installer: uv (fetched from PyPI into the venv, pinned) installs the locked set in seconds
# where pip takes minutes. Where uv cannot be had or cannot reach an index (pip's own mirror or
# a wheelhouse only), pip installs the same set from the same lock.
# --compile-bytecode: uv, unlike pip, writes no .pyc at install. Where Python may not write them
# at import either (PYTHONDONTWRITEBYTECODE, as in many CI and container images; a read-only
# site-packages), every process then compiles every module it imports, every time: a kernel's
# start and `import matplotlib.pyplot` took 2-3x as long, and the whole of `make test` 40% more.
UV_VERSION := 0.13.9
UV     := $(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python -c requirements/lock.txt
install = $(UV) $(1) || { echo "uv could not install; pip installs the same lock"; $(PIP) $(1); }
COURSE_STAMP := $(VENV)/.installed-course
TEST_STAMP   := $(VENV)/.installed-test
HOST   ?= 127.0.0.1
PORT   ?= 8888
# The suite is spread over the machine's cores (pytest-xdist), a file to a worker: a notebook's
# cells share one kernel, and a module's expensive fixture (a venv, the hub, the site) is built
# once. Files go out in collection order (--no-loadscope-reorder), and tests/conftest.py collects
# the longest first. The ten slowest tests are listed at the end. PYTEST_ARGS=-p no:xdist runs
# everything in one process.
PYTEST_ARGS ?= -n auto --dist loadfile --no-loadscope-reorder --durations=10
# The extras each target installs (environment.yml installs TEST_EXTRAS; a test keeps them in step).
COURSE_EXTRAS := course
TEST_EXTRAS   := course,classroom,grpc,test,interop
# JupyterLab refuses to run as root unless told; classroom images often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: lab test venv regen bench soak gates clean help wheelhouse

help:
	@echo "make lab    - set up .venv (course extra) and open JupyterLab on notebooks/00_start_here.ipynb"
	@echo "make test   - set up .venv (course, test and interop extras) and run every test"
	@echo "make venv   - only create the course environment in .venv"
	@echo "make gates  - only the quality gates: ruff, mypy, import-linter"
	@echo "make regen  - re-execute all notebooks (or NB=path) and store clean outputs"
	@echo "make bench  - run every benchmark side by side with the official SDKs"
	@echo "make soak   - the slow checks at their large sizes: the reliability suite (loopback only), the Dockerfile resolved for every JupyterHub the guide names, a classroom of three students"
	@echo "make wheelhouse - every wheel of agentproto[course] in build/wheelhouse, to install offline (EXTRAS=classroom)"
	@echo "make clean  - remove .venv and caches"

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "agentproto needs Python >= 3.11 (found %s); run: make PYTHON=python3.11" % sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	@# Python 3.11's venv seeds setuptools; nothing here needs it (3.12+ venvs no longer have it)
	$(BIN)/python -m pip uninstall --quiet --yes setuptools
	-$(BIN)/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

$(COURSE_STAMP): pyproject.toml requirements/lock.txt | $(VENV)/bin/python
	$(call install,-e ".[$(COURSE_EXTRAS)]")
	@touch $@

$(TEST_STAMP): pyproject.toml requirements/lock.txt | $(VENV)/bin/python
	$(call install,-e ".[$(TEST_EXTRAS)]")
	@touch $@ $(COURSE_STAMP) $(VENV)/.installed-classroom

venv: $(COURSE_STAMP)

lab: $(COURSE_STAMP)
	@echo "Starting JupyterLab on http://$(HOST):$(PORT) with notebooks/00_start_here.ipynb open."
	@echo "Open the link with ?token=... that JupyterLab prints below. Ctrl-C stops it."
	@$(BIN)/python -m agentproto.course.launcher --install-settings >/dev/null
	$(BIN)/jupyter lab --ip=$(HOST) --port=$(PORT) --no-browser $(ALLOW_ROOT) \
	  --ServerApp.root_dir="$(CURDIR)" notebooks/00_start_here.ipynb

test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

gates: $(TEST_STAMP)
	$(BIN)/python -m pytest tests/test_quality_gates.py

regen: $(TEST_STAMP)
	$(BIN)/python tools/regen_notebooks.py $(NB)

bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/run_all.py

soak: $(TEST_STAMP)
	AGENTPROTO_SOAK=1 $(BIN)/python -m pytest -q -s -p no:cacheprovider -p no:xdist tests/reliability \
	  tests/classroom/test_deploy_dockerfile.py tests/classroom/test_classroom_hub.py

# Every wheel `pip install "agentproto[$(EXTRAS)]"` needs, pinned by the lock, for .venv's Python
# and this OS/CPU: laptops like this machine install from the folder with no network (its README.txt).
WHEELHOUSE ?= build/wheelhouse
EXTRAS     ?= course

wheelhouse: | $(VENV)/bin/python
	$(BIN)/python tools/wheelhouse.py --out "$(WHEELHOUSE)" --extras "$(EXTRAS)"

# The classroom targets (make classroom STUDENTS=N, make site, make present NB=...).
-include mk/classroom.mk

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache .import_linter_cache build *.egg-info
