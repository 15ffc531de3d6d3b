"""`make test`'s `--dist loadgroup` keeps each xdist group on one worker (tests/support/xdist_groups.py).

The suite's shared module fixtures (a played store, a Dask cluster's ladder, a hostile-input
driver) are worth their cost only when a group's tests run in one process: under pytest 9 with
pytest-xdist 3.8 they silently did not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.xdist_groups import groups_hold

ROOT = Path(__file__).resolve().parents[2]

GROUPED = """
import os
import pytest

@pytest.mark.xdist_group("one")
@pytest.mark.parametrize("n", range(8))
def test_grouped(n, tmp_path_factory):
    with open(os.environ["PIDS_FILE"], "a") as pids:
        pids.write(f"{os.getpid()}\\n")

@pytest.mark.parametrize("n", range(8))
def test_free(n):
    pass
"""


def test_a_group_runs_on_one_worker(tmp_path):
    assert groups_hold()
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    pids = tmp_path / "pids"
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
         str(tmp_path)],
        capture_output=True, text=True, timeout=180, cwd=tmp_path, env={**os.environ, "PIDS_FILE": str(pids)},
    )  # fmt: skip
    assert "16 passed" in inner.stdout, inner.stdout + inner.stderr
    assert len(pids.read_text().split()) == 8 and len(set(pids.read_text().split())) == 1


SHARED = """
import os
import pytest

@pytest.fixture(scope="module")
def store():
    with open(os.environ["PIDS_FILE"], "a") as pids:
        pids.write(f"{os.getpid()}\\n")

@pytest.fixture
def copy(store):
    return store

@pytest.mark.parametrize("n", range(6))
def test_uses_it(n, store):
    pass

@pytest.mark.parametrize("n", range(6))
def test_uses_it_through_another(n, copy):
    pass

@pytest.mark.parametrize("n", range(12))
def test_free(n):
    pass
"""


def test_a_module_fixture_is_built_once_under_xdist_with_the_suites_conftest(tmp_path):
    """tests/conftest.py puts the tests that use a module's module-scoped fixture in one group."""
    (tmp_path / "test_shared.py").write_text(SHARED)
    pids = tmp_path / "pids"
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", "-n", "2",
         "--dist", "loadgroup", str(tmp_path)],
        capture_output=True, text=True, timeout=180, cwd=tmp_path,
        env={**os.environ, "PIDS_FILE": str(pids), "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert "24 passed" in inner.stdout, inner.stdout + inner.stderr
    assert len(pids.read_text().split()) == 1  # built once, not once per worker
