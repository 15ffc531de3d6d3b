"""Game capabilities (engine/api.py ``Capabilities``): each bundled game declares what it offers,
registration refuses a game whose declaration it does not live up to (one line, the others go
on), and every caller asks the declaration instead of looking for a name."""

from __future__ import annotations

import subprocess
import sys
from random import Random

import pytest

from arena.match.human import HumanSeat
from arena.registry.plugins import discover, hookimpl
from arena.web.replay import draw, phase_of
from arena.web.scoresheet import score_sheet
from engine.api import Capabilities, Result, capabilities
from engine.playout import observation_sampler, option_count, option_counter, option_labeller, play_random
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from examples.games.goofspiel.game import GAME as GOOFSPIEL
from examples.games.goofspiel.game import Goofspiel, GoofspielState


def test_the_bundled_games_register_with_what_they_declare():
    registry = discover()
    assert registry.broken == []
    offered = {
        name: capabilities(registry.game(name)).offered() for name in ("teotihuacan", "zapotec", "goofspiel")
    }
    assert offered == {
        "teotihuacan": (
            "picture", "phase", "score_sheet", "from_observation", "observation_sampler", "option_count",
            "option_labels",
        ),
        "zapotec": ("picture", "phase", "score_sheet", "from_observation", "observation_sampler", "option_count"),
        "goofspiel": ("phase",),
    }  # fmt: skip


class _Liar(Goofspiel):
    """Says it rebuilds states from observations; has no from_observation at all."""

    id = "liar"
    capabilities = Capabilities(from_observation=True)
    from_observation = None  # type: ignore[assignment]


class _OneArgumentCounter(Goofspiel):
    id = "one-argument-counter"
    capabilities = Capabilities(option_count=lambda state: 1)


class _PictureFile(Goofspiel):
    id = "picture-file"
    capabilities = Capabilities(picture="board.svg")  # type: ignore[arg-type]


class _DictDeclaration(Goofspiel):
    id = "dict-declaration"
    capabilities = {"picture": None}  # type: ignore[assignment]


class _Games:
    """One plugin offering a sound game beside four that declare what they lack."""

    @hookimpl
    def tlachtli_games(self):
        return [_Liar(), _OneArgumentCounter(), _PictureFile(), _DictDeclaration(), _Sound()]


class _Sound(Goofspiel):
    id = "sound"


def test_a_game_declaring_what_it_lacks_is_refused_in_one_line_and_the_rest_registers():
    registry = discover(extra_plugins={"mygames": _Games()})
    assert registry.broken == [
        "plugin mygames: game 'liar' is refused: declares from_observation but has no from_observation method",
        "plugin mygames: game 'one-argument-counter' is refused: capability 'option_count' must take "
        "(state, seat), not (state)",
        "plugin mygames: game 'picture-file' is refused: capability 'picture' is 'board.svg', not a function",
        "plugin mygames: game 'dict-declaration' is refused: its capabilities are dict, not "
        "engine.api.Capabilities",
    ]
    assert "sound" in registry.games and "goofspiel" in registry.games
    assert not {"liar", "one-argument-counter", "picture-file", "dict-declaration"} & set(registry.games)


def test_the_cli_warns_of_a_refused_game_and_goes_on(tmp_path, monkeypatch):
    (tmp_path / "liar_game.py").write_text(
        "from arena.bot import hookimpl\n"
        "from engine.api import Capabilities\n"
        "from examples.games.goofspiel.game import Goofspiel\n\n\n"
        "class Liar(Goofspiel):\n"
        "    id = 'liar'\n"
        "    capabilities = Capabilities(observation_vector=len, phase=lambda: '')\n\n\n"
        "@hookimpl\n"
        "def tlachtli_games():\n"
        "    return [Liar()]\n"
    )
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{sys.path[0]}")
    monkeypatch.setenv("TLACHTLI_PLUGINS", "liar_game,examples.games.goofspiel.game")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "games"], capture_output=True, text=True)
    assert out.returncode == 0 and "goofspiel" in out.stdout and "liar" not in out.stdout
    assert out.stderr.splitlines() == [
        "warning: plugin 'liar_game' (from $TLACHTLI_PLUGINS): game 'liar' is refused: "
        "capability 'phase' must take (state), not (); skipped"
    ]


def test_arena_games_names_a_games_capabilities():
    from typer.testing import CliRunner

    from arena.cli.main import app

    out = CliRunner().invoke(app, ["games", "zapotec"])
    assert out.exit_code == 0
    assert out.output.splitlines()[-1] == (
        "capabilities: picture, phase, score_sheet, from_observation, observation_sampler, option_count "
        "(docs/games.md)"
    )
    assert CliRunner().invoke(app, ["games", "goofspiel"]).output.splitlines()[-1] == (
        "capabilities: phase (docs/games.md)"
    )


# -- each caller asks the declaration --------------------------------------------------------------


class _Counted(Goofspiel):
    """Goofspiel with a declared option counter that counts its own calls."""

    id = "counted"

    def __init__(self) -> None:
        self.calls = 0
        self.capabilities = Capabilities(option_count=self.count)

    def count(self, state: GoofspielState, seat: int) -> int:
        self.calls += 1
        return option_count(state, seat)


def test_playouts_count_options_with_the_declared_counter_else_the_decision():
    game = _Counted()
    played = play_random(game.setup(2, 3, {}), Random(1), count=option_counter(game))
    plain = play_random(game.setup(2, 3, {}), Random(1))
    assert game.calls == 10 and played.result() == plain.result()  # 5 rounds of 2 bids: same game
    assert option_counter(TEOTIHUACAN) is TEOTIHUACAN.capabilities.option_count
    assert option_counter(GOOFSPIEL) is option_count
    assert option_labeller(TEOTIHUACAN) is TEOTIHUACAN.capabilities.option_labels
    assert option_labeller(ZAPOTEC) is not ZAPOTEC.capabilities.option_labels  # declares none


def test_the_observation_sampler_is_the_declared_one_else_from_observation():
    observation = ZAPOTEC.setup(2, 4, {}).observation(0)
    sampled = observation_sampler(ZAPOTEC, observation)(Random(2))
    assert sampled.keep_log is False  # the declared sampler's states keep no log
    assert sampled.observation(0) == ZAPOTEC.from_observation(observation, Random(2)).observation(0)

    class Rebuilds(Goofspiel):
        def from_observation(self, observation: dict, rng: Random) -> GoofspielState:
            return GoofspielState(2, rng.randrange(100), {"cards": 3})

    assert (
        observation_sampler(Rebuilds(), {})(Random(5)).prizes
        == Rebuilds().from_observation({}, Random(5)).prizes
    )


def test_the_search_bots_take_the_games_declared_fast_paths():
    from plugins.bots.ismcts import ISMCTSAgent
    from plugins.flat_mc_agent import FlatMonteCarloAgent

    hello = {"game": "teotihuacan", "seat": 0, "players": 2, "options": {}, "agent_options": {}}
    ismcts = ISMCTSAgent()
    ismcts.setup(hello)
    assert ismcts.count is TEOTIHUACAN.capabilities.option_count
    assert ismcts.labels is TEOTIHUACAN.capabilities.option_labels
    flat = FlatMonteCarloAgent()
    flat.setup(hello | {"game": "goofspiel"})
    assert flat.count is option_count  # goofspiel declares no counter


def test_the_match_viewer_draws_heads_and_scores_by_the_declaration():
    state = ZAPOTEC.setup(2, 1, {})
    assert draw(ZAPOTEC, state, 0, ["a", "b"]).startswith("<svg")
    assert phase_of(ZAPOTEC, state) == "Round 1" and phase_of(TEOTIHUACAN, TEOTIHUACAN.setup(2, 1, {})) == (
        "until Eclipse 1"
    )
    goofspiel = GOOFSPIEL.setup(2, 1, {})
    assert draw(GOOFSPIEL, goofspiel, None) is None and phase_of(GOOFSPIEL, goofspiel) == "Round 0"

    class Final:  # a finished position whose result carries a breakdown
        def terminal(self) -> bool:
            return True

        def result(self) -> Result:
            return Result((3, 1), (1, 2), {"breakdown": [{"a": 3}, {"a": 1}], "timeline": []})

    assert score_sheet(ZAPOTEC, Final(), ["x", "y"]) is not None  # type: ignore[arg-type]
    assert score_sheet(GOOFSPIEL, Final(), ["x", "y"]) is None  # type: ignore[arg-type]  # declares no sheet


@pytest.mark.parametrize(("game", "drawn"), [(ZAPOTEC, True), (GOOFSPIEL, False)])
def test_a_human_seats_page_draws_only_where_the_game_rebuilds_and_pictures(game, drawn):
    from arena.web.seat_app import SeatPages

    class NeverRebuilt(type(game)):  # type: ignore[misc]
        def from_observation(self, observation: dict, rng: Random):
            asked.append(observation)
            return super().from_observation(observation, rng)

    asked: list[dict] = []
    seat = HumanSeat(0, 1000)
    seat.last_decide = {"id": 1, "obs": game.setup(2, 1, {}).observation(0)}
    pages = SeatPages([seat], NeverRebuilt(), ["me", "them"])
    board = pages.board(seat)
    assert (board is not None and board.startswith("<svg")) is drawn
    assert bool(asked) is drawn  # goofspiel's from_observation (which raises) is never called
