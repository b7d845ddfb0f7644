# `make run` and `make test` work on a fresh machine: they create .venv and install what is needed
# (`make run` the system libraries Qt needs too).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PACKAGE_STAMP := $(VENV)/.installed-package

.PHONY: run test check typecheck lint docs bench package package-test install-test clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Recrawl needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

# On Linux, first the system libraries Qt needs, where some are missing: with apt-get or
# dnf, as root or through sudo (packaging/system_packages.py; elsewhere the app names them)
run: $(STAMP)
	@$(PYTHON) packaging/system_packages.py --install
	$(VENV)/bin/recrawl

# the tests on every core (pytest-xdist; at most four workers: more gain little and each
# holds its own crawls in memory); TEST_WORKERS=0 runs them in one process, in order
TEST_WORKERS ?= auto
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n $(TEST_WORKERS) --maxprocesses=4 --dist loadgroup --durations=15
	$(MAKE) --no-print-directory check

# ruff (lint and format), mypy and import-linter, on the checkout as it is (recrawl/core,
# recrawl/gui and recrawl/resources are links to the top-level folders)
check: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

lint typecheck: check

# the pages of docs/ made from the code (tests/docs fails when one is stale): the
# command-line reference from the argument parser, the settings table from the schema
.PHONY: docs
docs: $(STAMP)
	$(PY) docs/make_cli_reference.py
	$(PY) docs/make_settings_table.py

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) bench/crawl_bench.py
	$(PY) bench/schedule_bench.py
	$(PY) bench/discovery_bench.py
	$(PY) bench/filter_bench.py
	$(PY) bench/traps_bench.py
	$(PY) bench/compact_bench.py
	$(PY) bench/export_bench.py
	$(PY) bench/fidelity_bench.py
	$(PY) bench/memory_bench.py
	$(PY) bench/preview_bench.py
	$(PY) bench/cli_bench.py --wheel
	QT_QPA_PLATFORM=offscreen $(PY) bench/gui_bench.py

# the packaging tools (PyInstaller, build, pipx) on top of the test venv, once
$(PACKAGE_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,package]'
	@touch $(PACKAGE_STAMP)

# the bundle dist/recrawl/, and on Linux the .deb and .tar.gz; prints sizes and first paint
package: $(PACKAGE_STAMP)
	$(PY) packaging/build.py

# the bundle's self-test, then the .deb installed with dpkg, run and removed (as root)
package-test: package
	$(PY) packaging/smoke_test.py
	$(PY) packaging/package_test.py

# the wheel, pip and pipx installs, each in a fresh venv, run from / on a loopback site
install-test: $(PACKAGE_STAMP)
	$(PY) packaging/install_test.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
