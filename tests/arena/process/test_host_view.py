"""What an agent sees of the referee's machine (arena/process/host_view.py): paths and environment."""

from __future__ import annotations

import os
import sys

from arena.process.host_view import agent_environment, sandbox_pythonpath, visible_paths


def test_only_documented_variables_and_those_the_operator_names_are_passed_on(monkeypatch):
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("DATABASE_PASSWORD", "hunter2")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("TLACHTLI_AGENT_ENV", "OMP_NUM_THREADS, ")
    env = agent_environment("/tmp", ["/somewhere"])
    assert env["HOME"] == env["TMPDIR"] == "/tmp" and env["PYTHONPATH"] == "/somewhere"
    assert env["LC_TIME"] == "C" and env["OMP_NUM_THREADS"] == "1" and "DATABASE_PASSWORD" not in env
    assert env["TLACHTLI_PLUGINS"] == os.environ["TLACHTLI_PLUGINS"]
    assert "TLACHTLI_AGENT_ENV" not in env


def test_the_working_directory_is_never_visible_only_a_program_in_it(tmp_path, monkeypatch):
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "__init__.py").write_text("")
    (tmp_path / "bot").write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", ".")
    monkeypatch.setenv("TLACHTLI_PLUGINS", "mybot")
    monkeypatch.syspath_prepend(str(tmp_path))  # as PYTHONPATH=. gives the referee at its start
    paths = visible_paths(str(tmp_path / "bot"))
    assert str(tmp_path / "bot") in paths and str(tmp_path / "mybot") in paths
    assert not any(
        str(tmp_path).startswith(path.rstrip("/") + "/") or path == str(tmp_path) for path in paths
    )
    assert sandbox_pythonpath()[0] == str(tmp_path)  # "." resolved, with only mybot/ visible there
    assert sys.prefix in paths or any(sys.prefix.startswith(path + "/") for path in paths)
