# Two entry points (README): `make run` and `make test`. Both create .venv/ on first use.
PY ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint style format typecheck setup bench bench-all clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/co-tui $(ARGS)

# The suite in parallel (pytest-xdist): two workers a core, as most TUI and CLI tests wait on a
# subprocess, a terminal or the pilot's idle checks rather than compute (docs/performance.md, "The
# test suite"); an idle worker steals queued tests. PYTEST_WORKERS=0 runs it in this process,
# PYTEST_WORKERS=3 on three. The style checks run first (a second); mypy runs beside the suite
# (one process: run first, it left a core idle for ~23 s), its output after the tests', and it is
# stopped if the run is. Either failing fails `make test`.
# Bytecode is cached even where the environment sets PYTHONDONTWRITEBYTECODE (an empty value is
# unset to Python): the suite starts co-tui ~200 times as a fresh process and each worker imports
# every test module, and compiling them all again each time was ~4% of the suite's CPU time.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))
MYPY := $(VENV)/bin/python -m mypy co_tui
test: style
	@log=$$(mktemp) || exit 1; $(MYPY) > $$log 2>&1 & types=$$!; \
	trap 'kill $$types 2>/dev/null; rm -f $$log' EXIT; trap 'exit 130' HUP INT TERM; \
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS); \
	tests=$$?; wait $$types; typed=$$?; echo "--- $(MYPY)"; cat $$log; \
	[ $$typed -eq 0 ] || echo "make test: mypy failed (above)" >&2; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# The quick loop while editing: the suite without the tests marked `slow` (tmux walks and real
# co-tui, Python or MCP server processes; pyproject.toml [tool.pytest.ini_options]), no style
# checks or mypy. `make test` runs everything, as CI does.
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal -m "not slow" $(PYTEST_ARGS)

# Lint: the style checks, then types.
lint: style typecheck

# Ruff's lint rules and its format check (pyproject.toml [tool.ruff]); `make format` rewrites the
# tree in ruff's style.
style: $(STAMP)
	$(VENV)/bin/python -m ruff check co_tui tests benchmarks scripts
	$(VENV)/bin/python -m ruff format --check co_tui tests benchmarks scripts

format: $(STAMP)
	$(VENV)/bin/python -m ruff format co_tui tests benchmarks scripts

# Types (configured in pyproject.toml: governance/ and session/ strictly).
typecheck: $(STAMP)
	$(MYPY)

# The performance budget: the benchmarks that measure a kept figure, then one table of every figure
# against its target (benchmarks/budget.py; docs/performance.md). `make bench-all` runs every script.
bench: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,bench]'
	$(VENV)/bin/python benchmarks/budget.py $(ARGS)

bench-all: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e '.[test,bench]'
	for b in benchmarks/*.py; do $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
