"""The suite's leak guard (tests/conftest.py): a test that leaves a process running fails."""

from __future__ import annotations

import subprocess
import sys

LEAKY = """\
import os, subprocess, sys, time

def test_leaves_a_child():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])

def test_leaves_an_orphan():
    # a grandchild whose parent has exited: no longer our descendant, found by its tag
    subprocess.run([sys.executable, "-c",
        "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])"])

def test_ends_its_child():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    child.kill()
    child.wait()
"""


def test_a_test_leaving_a_process_running_fails_and_the_process_is_killed(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import _no_process_left  # noqa: F401\n")
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    out = inner.stdout
    assert inner.returncode == 1, out
    assert "3 passed, 2 errors" in out, out  # an error at teardown: the test body itself passed
    # counted in the ERRORS section only: the short summary repeats the message, cut or not
    # depending on the terminal's width (CI's is wide enough to repeat it whole)
    errors_section = out.split("short test summary info")[0]
    assert errors_section.count("left 1 process(es) running (now killed)") == 2, out
    assert (
        "ERROR test_leaky.py::test_leaves_a_child" in out
        and "ERROR test_leaky.py::test_leaves_an_orphan" in out
    )
    # the outer guard of this very test checks that the inner guard killed both


# Under pytest-xdist (`make test`) each worker's guard must see only its own tests' processes.
PARALLEL = """\
import pathlib, subprocess, sys, time

import pytest

STARTED = pathlib.Path(__file__).with_name("child-started")

@pytest.mark.xdist_group("a")
def test_keeps_a_child_while_the_other_worker_ends_a_test():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    STARTED.write_text("")
    time.sleep(6)  # meanwhile the other worker's test ends, and its guard looks for leftovers
    assert child.poll() is None  # no other guard took it for its own
    child.kill()
    child.wait()

@pytest.mark.xdist_group("b")
def test_ends_while_the_other_worker_has_a_child():
    deadline = time.monotonic() + 60
    while not STARTED.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)

@pytest.mark.xdist_group("b")
def test_leaves_a_child_beside_another_worker():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
"""


def test_under_xdist_each_worker_blames_only_its_own_tests(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import _no_process_left  # noqa: F401\n")
    (tmp_path / "test_parallel.py").write_text(PARALLEL)
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "-n", "2", "--dist", "loadgroup", str(tmp_path)],
        capture_output=True, text=True, timeout=180, cwd=tmp_path,
    )  # fmt: skip
    out = inner.stdout
    assert "3 passed, 1 error" in out, out
    assert "ERROR test_parallel.py::test_leaves_a_child_beside_another_worker" in out, out
    assert out.split("short test summary info")[0].count("left 1 process(es) running (now killed)") == 1, out
