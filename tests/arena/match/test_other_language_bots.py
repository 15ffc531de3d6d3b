"""The bots in other languages (examples/bots/js, examples/bots/c) play real matches over the wire protocol."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.match.conformance import CheckReport, check_specs
from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.registry.plugins import discover

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "bots"
# one worker under xdist: node and the compiled C bot are set up once for the module
pytestmark = pytest.mark.xdist_group("other-language-bots")


@pytest.fixture(scope="module")
def js_bot() -> str:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript example bot cannot run")
    return str(EXAMPLES / "js" / "bot.js")


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory) -> str:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc, clang): the C example bot cannot be built")
    binary = tmp_path_factory.mktemp("cbot") / "bot"
    build = subprocess.run(
        [compiler, "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-o", str(binary),
         str(EXAMPLES / "c" / "bot.c")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr  # warnings are errors: the example must stay clean
    return str(binary)


def play(bot: str, game: str, seed: int, bot_seat: int = 0, players: int = 2) -> dict:
    agents = ["random"] * players
    agents[bot_seat] = bot
    outcome = run_match(MatchSpec(game=game, agents=tuple(agents), seed=seed), discover())
    return outcome.record


@pytest.mark.parametrize("language", ["js", "c"])
@pytest.mark.parametrize(
    "game, players, seat", [("zapotec", 2, 1), ("teotihuacan", 3, 0), ("goofspiel", 4, 2)]
)
def test_plays_whole_matches_without_faults(language, game, players, seat, request, no_leftovers):  # noqa: F811
    bot = request.getfixturevalue(f"{language}_bot")
    record = play(bot, game, seed=21, bot_seat=seat, players=players)
    assert record["faults"] == []
    mine = [move for move in record["moves"] if move["seat"] == seat]
    assert mine and all(move["by"] == "agent" for move in mine)
    assert record["agents"][seat]["kind"] == "external"


@pytest.mark.parametrize("language", ["js", "c"])
def test_the_agent_option_seed_makes_matches_replay(language, request, no_leftovers):  # noqa: F811
    bot = request.getfixturevalue(f"{language}_bot")
    first = [m["choice"] for m in play(bot, "zapotec", seed=5)["moves"]]
    again = [m["choice"] for m in play(bot, "zapotec", seed=5)["moves"]]
    assert first == again


@pytest.mark.parametrize("language", ["js", "c"])
def test_passes_arena_check(language, request, no_leftovers):  # noqa: F811
    bot = request.getfixturevalue(f"{language}_bot")
    registry = discover()
    report = CheckReport(bot)
    for spec, seat in check_specs(bot, registry, "zapotec"):
        report.add(run_match(spec, registry), seat)
    assert report.passed, report.summary_lines()
    assert report.matches == 10
