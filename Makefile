# Every target installs what it needs on a fresh machine: only python3 (>= 3.11) is assumed.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup test test-all stress demo bench lint clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (set PYTHON=python3.11)")'
	@# The bot sandbox (docs/security.md): bubblewrap, installed when root and missing; without it
	@# bots run unsandboxed (with a warning) and the sandbox tests are skipped.
	@command -v bwrap > /dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get > /dev/null || \
		(apt-get install -y -qq bubblewrap > /dev/null 2>&1 || \
		 (apt-get update -qq > /dev/null 2>&1 && apt-get install -y -qq bubblewrap > /dev/null 2>&1)) || \
		echo "note: could not install bubblewrap; bots will run without a sandbox"
	@# A PostgreSQL server for the store tests (tests/support/postgres.py starts one per test
	@# process); installed when root and missing; without it those tests are skipped.
	@command -v initdb > /dev/null || ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		! command -v apt-get > /dev/null || \
		(apt-get install -y -qq postgresql > /dev/null 2>&1 || \
		 (apt-get update -qq > /dev/null 2>&1 && apt-get install -y -qq postgresql > /dev/null 2>&1)) || \
		echo "note: could not install postgresql; the PostgreSQL store tests will be skipped"
	$(PYTHON) -m venv $(VENV)
	@# uv installs in ~6 s what pip installs in ~40 (its bytecode is compiled below), pip's newest
	@# release with it; pip where uv cannot.
	($(PY) -m pip install --quiet uv && $(PY) -m uv pip install --quiet --python $(PY) --upgrade pip -e '.[dev,rl,web,cluster,postgres,train]') || \
		($(PY) -m pip install --quiet --upgrade pip && $(PY) -m pip install --quiet -e '.[dev,rl,web,cluster,postgres,train]')
	@# Bytecode up front: agent processes start per match, in a sandbox that cannot write it. All of
	@# site-packages but what no process of the suite or of a match imports (tests, type checkers,
	@# installers): compiled on first use by a process that can write it, if ever.
	$(PY) -m compileall -q -j 0 -x '/(tests?|testing|mypy|mypyc|pip|setuptools|uv|pygments/lexers|scipy-stubs)/' \
		"$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" > /dev/null
	$(PY) -m compileall -q engine arena plugins tests > /dev/null
	touch $(STAMP)

# The suite runs in TEST_WORKERS processes side by side (pytest-xdist); tests that share a costly
# module fixture stay on one worker (--dist loadgroup, xdist_group marks). docs/testing.md says how
# to keep a new test safe there. TEST_WORKERS=0 runs it in this one process.
# PYTHONDONTWRITEBYTECODE is cleared so that pytest keeps its rewritten test modules between runs.
# `make test` (what CI runs) leaves out the tests marked slow (long stress and variant tests, each
# listed in docs/testing.md with the test that covers its code in `make test`); `make test-all` runs all.
TEST_WORKERS ?= 4
# tests/support/rewrite_cache.py first caches pytest's rewritten test modules once, which each
# worker would otherwise rewrite for itself on a fresh clone.
PYTEST := $(PY) -m tests.support.rewrite_cache && PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=15
test: setup
	$(PYTEST) -m "not slow"

test-all: setup
	$(PYTEST)

# `arena run` interrupted at random moments many times (tests/arena/tournament/run/test_stress.py; the suite runs 4 rounds).
STRESS_ROUNDS ?= 40
stress: setup
	TLACHTLI_STRESS_ROUNDS=$(STRESS_ROUNDS) $(PY) -m pytest -q -p no:cacheprovider tests/arena/tournament/run/test_stress.py tests/arena/tournament/run/test_runner.py

demo: setup
	$(VENV)/bin/arena run ladders/demo.toml --db demo.db --fail-on-faults
	$(VENV)/bin/arena leaderboard --db demo.db
	@echo "look at it in a browser: $(VENV)/bin/arena serve --db demo.db, then open http://127.0.0.1:8000/"
	@echo "(or source $(VENV)/bin/activate once in this shell, and then type arena ... as the README's examples do)"

bench: setup
	$(PY) bench/run_all.py

# ruff (lint and formatting) over the tree; mypy over the packages, examples and benchmarks ([tool.mypy] in
# pyproject.toml; docs/testing.md says why that strictness).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy arena engine plugins examples bench

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .mypy_cache demo.db*
