# agentproto — two commands do everything:
#   make lab    create .venv, install the kit, open JupyterLab on the first notebook
#   make test   create/update .venv and run every test (unit, integration, notebooks, browser)
# Only Python >= 3.11 and make are needed. Override the interpreter with `make PYTHON=python3.12`.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8888
PYTEST_ARGS ?=
# JupyterLab refuses to run as root unless told; classroom images often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: lab test venv regen bench lint-samples clean help

help:
	@echo "make lab    - set up .venv and open JupyterLab on notebooks/00_start_here.ipynb"
	@echo "make test   - set up .venv and run every test (notebooks included)"
	@echo "make regen  - re-execute all notebooks and store clean outputs"
	@echo "make bench  - run the side-by-side benchmarks against the official SDKs"
	@echo "make clean  - remove .venv and caches"

$(STAMP): pyproject.toml requirements/lock.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "agentproto needs Python >= 3.11 (found %s); run: make PYTHON=python3.11" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements/lock.txt -e ".[test,interop]"
	@touch $(STAMP)

venv: $(STAMP)

lab: $(STAMP)
	@echo "Starting JupyterLab on http://$(HOST):$(PORT) with notebooks/00_start_here.ipynb open."
	@echo "Open the link with ?token=... that JupyterLab prints below. Ctrl-C stops it."
	$(BIN)/jupyter lab --ip=$(HOST) --port=$(PORT) --no-browser $(ALLOW_ROOT) \
	  --ServerApp.root_dir="$(CURDIR)" notebooks/00_start_here.ipynb

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

regen: $(STAMP)
	$(BIN)/python tools/regen_notebooks.py $(NB)

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
