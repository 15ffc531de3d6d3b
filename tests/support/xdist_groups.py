"""A check that ``--dist loadgroup`` really groups (loaded by tests/conftest.py as a plugin).

pytest-xdist 3.8 groups a test by appending ``@group`` to its ``item._nodeid``; pytest 9 builds
``nodeid`` from another field, so the groups were silently dropped: every group's tests, and the
module fixtures they share, spread over all workers (a module's fixture set up again on each, or
again after another module's tests: the suite paid ~15% more CPU). pyproject.toml pins pytest
below 9; this refuses a run where the two disagree again, before any test runs.
"""

from __future__ import annotations

import inspect

import pytest
from _pytest.nodes import Node


def groups_hold() -> bool:
    """Whether pytest's node id still reads the field pytest-xdist writes its group into."""
    from xdist.remote import WorkerInteractor

    writes_nodeid_field = "_nodeid" in inspect.getsource(WorkerInteractor.pytest_collection_modifyitems)
    reads_nodeid_field = "_nodeid" in inspect.getsource(Node.nodeid.fget)  # type: ignore[attr-defined]
    return reads_nodeid_field or not writes_nodeid_field


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("dist", "no") == "loadgroup" and not groups_hold():
        raise pytest.UsageError(
            f"--dist loadgroup would group nothing with pytest {pytest.__version__} and this pytest-xdist; "
            "run `make setup` (pyproject.toml pins a pytest that works with it)"
        )
