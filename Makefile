# `make run` and `make test` work on a fresh machine: they create .venv and install what is needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench package package-test clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Recrawl needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/recrawl

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q
	$(VENV)/bin/ruff check .

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) bench/crawl_bench.py
	$(PY) bench/schedule_bench.py
	$(PY) bench/filter_bench.py
	$(PY) bench/compact_bench.py
	QT_QPA_PLATFORM=offscreen $(PY) bench/gui_bench.py

package: $(STAMP)
	$(PY) -m pip install --quiet -e '.[package]'
	$(PY) packaging/build.py

package-test: package
	$(PY) packaging/smoke_test.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
