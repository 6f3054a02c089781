# The classroom targets (included by the Makefile; VENV, BIN, install, TEST_STAMP, PORT come from it).
#   make classroom STUDENTS=N   a real JupyterHub on 127.0.0.1, N simulated students -> build/classroom.json
#   make site                   the course as a static website -> build/site/index.html
#   make present [NB=notebooks/10_a2a_task_lifecycle.ipynb] [PORT=8866]   the course via Voilà, no code:
#                               every notebook at /voila/render/NN_name.ipynb of one server, the
#                               listing at /; NB= prints that notebook's page, without NB the listing;
#                               OPEN=1 opens it in a web browser
# docs/workshop.md is the instructor's guide to all three.

STUDENTS ?= 3
# `make present` listens on 8866 unless PORT= is given (the Makefile's PORT default, 8888, is `make lab`'s).
PRESENT_PORT := $(if $(filter command line environment,$(origin PORT)),$(PORT),8866)

# The classroom tools (hub, Voilà, site generator) are the `classroom` extra: the course
# environment (`make venv`) plus those tools, without the test toolchain. `make test` installs
# it too (TEST_EXTRAS in the Makefile), so its stamp counts.
CLASSROOM_STAMP := $(VENV)/.installed-classroom

$(CLASSROOM_STAMP): pyproject.toml requirements/lock.txt | $(VENV)/bin/python
	$(call install,-e ".[classroom]")
	@touch $@ $(COURSE_STAMP)

.PHONY: classroom site present

classroom: $(CLASSROOM_STAMP)
	$(BIN)/python tools/classroom.py --students $(STUDENTS)

site: $(CLASSROOM_STAMP)
	$(BIN)/python tools/build_site.py

present: $(CLASSROOM_STAMP)
	$(BIN)/python tools/present.py $(if $(NB),"$(NB)") --port $(PRESENT_PORT) $(if $(OPEN),--open)
