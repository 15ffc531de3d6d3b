"""The README's and docs' examples work as shown: the bot package installs, the commands run."""

from __future__ import annotations

import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in a Markdown file."""
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(encoding="utf-8"), re.M | re.S)


def readme_block(language: str, first_line: str) -> str:
    (found,) = [block for block in blocks(ROOT / "README.md", language) if block.startswith(first_line)]
    return found


def arena_command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "arena.cli", *args]


def test_the_readme_bot_package_installs_and_plays(tmp_path):
    package = tmp_path / "mybot-package"
    (package / "mybot").mkdir(parents=True)
    (package / "mybot" / "__init__.py").write_text(readme_block("python", "# mybot/__init__.py"))
    (package / "pyproject.toml").write_text(readme_block("toml", "# pyproject.toml of your bot package"))
    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-build-isolation"]
        + ["--target", str(site), str(package)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stderr
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ["PYTHONPATH"]]))
    listed = subprocess.run(arena_command(["agents"]), capture_output=True, text=True, env=env, timeout=120)
    assert listed.returncode == 0 and "first-option" in listed.stdout, listed.stderr
    play = ["play", "--game", "zapotec", "--agent", "first-option", "--agent", "random", "--seed", "1"]
    played = subprocess.run(arena_command(play), capture_output=True, text=True, env=env, timeout=240)
    assert played.returncode == 0 and "first-option" in played.stdout, played.stderr


def test_the_unpackaged_module_needs_pythonpath_as_the_readme_says(tmp_path):
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "__init__.py").write_text(readme_block("python", "# mybot/__init__.py"))
    arena = [str(Path(sys.executable).with_name("arena")), "agents"]
    bare = dict(os.environ, TLACHTLI_PLUGINS="mybot")
    bare.pop("PYTHONPATH")
    refused = subprocess.run(arena, capture_output=True, text=True, env=bare, cwd=tmp_path, timeout=120)
    assert refused.returncode == 2 and "No module named 'mybot'" in refused.stderr
    assert refused.stderr.count("\n") == 1
    listed = subprocess.run(
        arena, capture_output=True, text=True, env=dict(bare, PYTHONPATH="."), cwd=tmp_path, timeout=120
    )
    assert listed.returncode == 0 and "first-option" in listed.stdout, listed.stderr


def shown_commands(docs: list[Path] = DOCS) -> list[tuple[str, list[str]]]:
    """Every `arena ...` command of the sh blocks of ``docs``, in order, as (where, argv).

    Left out: the rest of a block after a step this test cannot take (a `pip install`, which
    tests/arena/cli/test_newbot.py plays out; a cluster address this machine lacks, which
    tests/arena/tournament/test_cluster.py replaces with a real cluster), and `arena serve`, which runs until
    stopped (tests/arena/web/test_web.py starts a real one).
    """
    found = []
    for path in docs:
        for block in blocks(path, "sh"):
            for line in block.splitlines():
                if line.startswith("pip install") or "tcp://" in line:
                    break
                for part in line.split("&&"):
                    words = shlex.split(part, comments=True)
                    if words[:2] == ["arena", "serve"]:
                        continue
                    if words and words[0] == "arena":
                        found.append((f"{path.name}: {part.strip()}", words[1:]))
    return found


def run_until_some_done(args: list[str], cwd: Path) -> tuple[int, str]:
    """`arena run`: to the end if it is quick, else stopped by Ctrl-C once a match is stored."""
    db = cwd / "tlachtli.db"
    before = _done_matches(db)  # a second run of the same ladder resumes it
    process = subprocess.Popen(
        arena_command(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 180
        while process.poll() is None and time.monotonic() < deadline and _done_matches(db) <= before:
            time.sleep(0.2)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, out + err


def _done_matches(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT COUNT(*) FROM matches WHERE status = 'done'").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_the_readme_and_docs_show_commands_to_run():
    assert len(shown_commands()) >= 8


# One test a document (each in a folder of its own, its commands in order): they run side by side
# under pytest-xdist, and none waits for every other document's commands.
@pytest.mark.parametrize("doc", [path for path in DOCS if shown_commands([path])], ids=lambda path: path.name)
def test_every_command_in_readme_and_docs_runs(doc, tmp_path):
    for folder in ("examples", "ladders"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    for where, args in shown_commands([doc]):
        if args[0] == "run":
            code, shown = run_until_some_done(args, tmp_path)
            assert code in (0, 130), (where, shown)
        else:
            result = subprocess.run(
                arena_command(args), cwd=tmp_path, capture_output=True, text=True, timeout=300
            )
            code, shown = result.returncode, result.stdout + result.stderr
            assert code == 0, (where, shown)
        assert "Traceback" not in shown, (where, shown)
