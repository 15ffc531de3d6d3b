"""`arena new-bot`: the package it writes installs, shows in `arena agents`, passes its tests and `arena check`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.newbot import NewBotError, check_name, render, write_package
from arena.match.inprocess import play_in_process
from arena.registry.plugins import discover
from plugins.random_agent import RandomAgent

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[3]


def author_env(bot: str) -> dict[str, str]:
    """The environment of an author's shell: no test plugins (Tlachtli's or pytest's, e.g. the CPU
    report docs/testing.md runs with), no source tree on the path; of the installed plugins,
    Tlachtli's and the new ``bot``'s only (not those the user installed here)."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("TLACHTLI_PLUGINS", "PYTEST_PLUGINS", "PYTHONPATH")
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["TLACHTLI_ENTRY_POINTS_ONLY"] = f"tlachtli,tlachtli-bot-{bot}"
    return env


def venv_with_tlachtli(where: Path) -> Path:
    """A fresh virtual environment that sees this one's packages (Tlachtli, pip, setuptools); its python.

    A .pth line runs site.addsitedir on this environment's site-packages, so its own .pth files
    (Tlachtli's editable install) work too, while installs go into the new environment.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    here = sysconfig.get_paths()["purelib"]
    Path(purelib, "tlachtli-parent-env.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    return python


def test_new_bot_installs_lists_passes_its_tests_and_check(tmp_path, monkeypatch, no_leftovers):  # noqa: F811
    # A name of its own: the README's my-bot may be installed here already, by the user.
    bot = f"my-bot-{uuid.uuid4().hex[:8]}"
    module = bot.replace("-", "_")

    def run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(python), *args], cwd=cwd, env=author_env(bot), capture_output=True, text=True, timeout=240
        )

    monkeypatch.chdir(tmp_path)
    out = runner.invoke(app, ["new-bot", bot, "--game", "zapotec"])
    assert out.exit_code == 0, out.output
    package = tmp_path / bot
    assert (package / module / "__init__.py").is_file() and (
        package / "tests" / f"test_{module}.py"
    ).is_file()

    python = venv_with_tlachtli(tmp_path / "venv")
    install = run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                  "-e", str(package), cwd=tmp_path)  # fmt: skip
    assert install.returncode == 0, install.stderr
    listed = run(python, "-m", "arena.cli", "agents", "--wide", cwd=tmp_path)  # with its plugin column
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith(f"{bot} "))
    assert "zapotec" in row and "python" in row and f"tlachtli-bot-{bot} 0.1.0" in row

    tests = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package), cwd=package)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "4 passed" in tests.stdout

    options = run(python, "-m", "arena.cli", "agents", bot, cwd=tmp_path)
    assert options.returncode == 0, options.stderr
    assert options.stdout.splitlines()[2].split()[:2] == ["seed", "int"]  # the option it declares

    check = run(python, "-m", "arena.cli", "check", bot, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.strip().splitlines()[-1] == f"PASS: {bot} speaks the protocol cleanly"
    assert "matches played: 10" in check.stdout  # zapotec 1-4 seats, the bot in every seat


def test_the_rendered_bot_claims_what_it_was_asked():
    any_game = render("any-bot", None)
    assert "games=()," in any_game["any_bot/__init__.py"]
    assert 'any-bot = "any_bot"' in any_game["pyproject.toml"]
    one_game = render("one-bot", "teotihuacan")
    assert 'games=("teotihuacan",),' in one_game["one_bot/__init__.py"]
    assert 'GAMES = ["teotihuacan"] or' in one_game["tests/test_one_bot.py"]
    compile(one_game["one_bot/__init__.py"], "bot", "exec")
    compile(one_game["tests/test_one_bot.py"], "test", "exec")


@pytest.mark.parametrize(
    "name, fragment",
    [("My-Bot", "lower-case letters"), ("9lives", "a letter first"), ("random", "installed already"),
     ("json", "module 'json' exists")],
)  # fmt: skip
def test_names_that_cannot_work_are_refused(name, fragment):
    with pytest.raises(NewBotError, match=fragment):
        check_name(name, {"random"})


def test_cli_refuses_a_taken_directory_and_an_unknown_game_in_one_line(tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("mine")
    out = runner.invoke(app, ["new-bot", "fresh-bot", "--dir", str(tmp_path / "busy")])
    assert out.exit_code == 2 and "not an empty directory" in out.output
    assert (tmp_path / "busy" / "file").read_text() == "mine"  # nothing overwritten
    out = runner.invoke(app, ["new-bot", "fresh-bot", "--game", "nope", "--dir", str(tmp_path / "x")])
    assert out.exit_code == 2 and "unknown game 'nope'" in out.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("game", ["zapotec", "teotihuacan", None])
def test_the_package_is_lint_clean_in_the_repository_and_on_its_own(tmp_path, game):
    """`arena new-bot` run in a Tlachtli checkout must not break its `make lint` (ruff, the repo's
    config, sees arena/ and plugins/ as first-party there), nor the package's own ruff run."""
    ruff = [sys.executable, "-m", "ruff", "check", "--no-cache"]
    checkout = tmp_path / "checkout"
    for first_party in ("arena", "plugins", "engine"):
        (checkout / first_party).mkdir(parents=True)
        (checkout / first_party / "__init__.py").write_text("")
    (checkout / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    write_package(checkout / "my-bot", render("my-bot", game))
    in_checkout = subprocess.run([*ruff, "my-bot"], cwd=checkout, capture_output=True, text=True, timeout=120)
    assert in_checkout.returncode == 0, in_checkout.stdout + in_checkout.stderr
    alone = subprocess.run([*ruff, "."], cwd=checkout / "my-bot", capture_output=True, text=True, timeout=120)
    assert alone.returncode == 0, alone.stdout + alone.stderr


@pytest.mark.parametrize("game_id, claimed", [("zapotec", True), ("teotihuacan", True), ("goofspiel", True),
                                              ("zapotec", False)])  # fmt: skip
def test_the_strategy_example_uses_a_real_decision_of_the_game(game_id, claimed):
    """The commented example in ``Bot.choose``, uncommented, decides in a real game (it once tested
    kind "bid", which only the test game has): play_in_process raises if it picks an option not offered."""
    game = discover().game(game_id)
    source = render("eg-bot", game_id if claimed else None, game)["eg_bot/__init__.py"]
    assert f"# For example, in the first decision of a {game_id} match:" in source
    source = source.replace('importlib.metadata.version("tlachtli-bot-eg-bot")', '"0"')  # not installed here
    source = re.sub(r"^        #     (\s*)(if |return )", r"        \1\2", source, flags=re.M)
    fallback = "return self.rng.choice(decision.options)"
    assert source.count(fallback) == 1
    source = source.replace(fallback, "self.random_picks += 1\n        " + fallback)
    namespace: dict = {"__name__": "eg_bot"}
    exec(compile(source, "eg_bot/__init__.py", "exec"), namespace)
    bot = namespace["Bot"]()
    bot.random_picks = 0
    decided = []
    bot.choose = lambda decision, choose=bot.choose: decided.append(decision.kind) or choose(decision)
    play_in_process(game, [bot] + [RandomAgent() for _ in range(max(2, game.min_players) - 1)], seed=1)
    assert 0 < len(decided) - bot.random_picks  # some decisions were the example's
