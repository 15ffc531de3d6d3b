"""The bundled search bots ``ismcts`` and ``greedy`` and the evaluators they use.

In process: legal complete games in both games (2 players and solo against the automaton),
determinism for a seed and an iteration budget, strength against random; then one real refereed
match with a 100 ms clock, where the bots must think within the time they are given.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from itertools import islice
from random import Random

import pytest

from arena.match.inprocess import decide_message, hello_message, play_in_process
from arena.registry.plugins import EvaluatorSpec, PluginError, discover
from engine.api import Game
from engine.playout import option_labels
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots import evaluators, tuning
from plugins.bots.clock import think_ms
from plugins.bots.greedy import GreedyAgent
from plugins.bots.ismcts import CARRY, ISMCTSAgent, Node, option_keys
from plugins.bots.tuning import Tuning, tuning_for
from plugins.random_agent import RandomAgent

GAMES = [ZAPOTEC, TEOTIHUACAN]
AUTOMATA = {"zapotec": "cocijobot", "teotihuacan": "teotibot"}
# A small iteration budget: legality and behaviour, not full strength (greedy has no budget:
# each bot is given only the options it declares).
QUICK = {"iterations": 6, "depth": 4}
OWN_QUICK = {ISMCTSAgent: QUICK, GreedyAgent: {}}


def test_bots_and_evaluators_are_registered():
    agents = discover().agents
    assert agents["ismcts"].factory is ISMCTSAgent and agents["greedy"].factory is GreedyAgent
    for game in GAMES:
        spec = evaluators.find_evaluator(game.id)
        assert spec is not None and spec.game == game.id and "bot-evaluators" in spec.source


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_evaluator_gives_every_seat_a_value_and_the_scores_at_the_end(game):
    spec = evaluators.find_evaluator(game.id)
    state = game.setup(1, 4, {"automaton": AUTOMATA[game.id]})
    assert len(spec.evaluate(state)) == 2  # the automaton's seat too
    state = play_in_process(game, [RandomAgent(), RandomAgent()], 4)
    assert spec.evaluate(state) == [float(s) for s in state.result().scores]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_greedy_and_ismcts_play_a_complete_two_player_game(game):
    # play_in_process raises IllegalAction on any choice outside the options.
    bots = [ISMCTSAgent(), GreedyAgent()]
    state = play_in_process(game, bots, 2, agent_options=[QUICK, {}])
    assert state.terminal() and len(state.result().scores) == 2
    assert bots[0].mismatches == 0 and bots[1].mismatches == 0  # the sampled decision is the one asked
    assert bots[0].reused > 0  # consecutive own decisions kept the subtree


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("bot", [ISMCTSAgent, GreedyAgent], ids=["ismcts", "greedy"])
def test_each_bot_plays_solo_against_the_automaton(game, bot):
    agent = bot()
    state = play_in_process(game, [agent], 3, agent_options=[OWN_QUICK[bot]], automaton=AUTOMATA[game.id])
    assert state.terminal() and len(state.result().scores) == 2 and agent.mismatches == 0


def first_choices(game: Game, bot, options: dict, steps: int) -> list[int]:
    """The bot's choices in seat 0 for the first ``steps`` decisions, random in seat 1."""
    state = game.setup(2, 7, {})
    agents = [bot(), RandomAgent()]
    for seat, agent in enumerate(agents):
        agent.setup(hello_message(game, seat, 2, {}, options if seat == 0 else {"seed": 9}))
    picked = []
    for step in range(1, steps + 1):
        if not state.to_act():
            break
        seat = state.to_act()[0]
        message = decide_message(state, seat, step)
        choice = agents[seat].act(message["obs"], message)
        if seat == 0:
            picked.append(choice)
        state.apply(seat, choice)
    return picked


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("bot", [ISMCTSAgent, GreedyAgent], ids=["ismcts", "greedy"])
def test_same_seed_and_budget_same_choices(game, bot):
    # greedy's budget is the clock unless told otherwise: on a slow machine under the suite's load
    # the nominal clock cut its Teotihuacan play-outs short in one run and not the other
    options = {**OWN_QUICK[bot], "seed": 1, **({"clock": False} if bot is GreedyAgent else {})}
    assert first_choices(game, bot, options, 25) == first_choices(game, bot, options, 25)


def test_ismcts_other_seed_other_choices():
    options = {"iterations": 8, "depth": 4}  # 7 of its first 16 choices differ from seed 2's
    ones = first_choices(ZAPOTEC, ISMCTSAgent, {**options, "seed": 1}, 30)
    assert ones != first_choices(ZAPOTEC, ISMCTSAgent, {**options, "seed": 2}, 30)


def test_ismcts_beats_random_on_zapotec():
    margins = []
    for seed in range(6):
        seat = seed % 2
        agents = [RandomAgent(), RandomAgent()]
        options = [{"seed": 50 + seed}, {"seed": 50 + seed}]
        # 8 iterations win all 6 (by 4 to 19 points); more only cost time
        agents[seat], options[seat] = ISMCTSAgent(), {"seed": seed, "iterations": 8}
        result = play_in_process(ZAPOTEC, agents, 200 + seed, agent_options=options).result()
        margins.append(result.scores[seat] - result.scores[1 - seat])
    assert sum(m > 0 for m in margins) >= 5, margins


def test_a_single_option_is_answered_without_search():
    for bot in (ISMCTSAgent(), GreedyAgent()):  # no setup: a forced move needs no game
        assert bot.act({}, {"options": [{"label": "pass"}]}) == 0


@pytest.mark.parametrize(
    "options, word",
    [({"iterations": 0}, "iterations"), ({"time_ms": "fast"}, "time_ms"), ({"policy": "smart"}, "policy"),
     ({"exploration": -1}, "exploration"), ({"depth": -2}, "depth"), ({"reward": "score"}, "reward"),
     ({"prior": -1}, "prior"), ({"prior": 1.5}, "prior"), ({"win_share": 1.5}, "win_share"),
     ({"iteratons": 5}, "unknown option 'iteratons': did you mean 'iterations'")],
)  # fmt: skip
def test_bad_ismcts_options_are_refused_with_their_name(options, word):
    with pytest.raises(ValueError, match=word):
        ISMCTSAgent().setup(hello_message(ZAPOTEC, 0, 2, {}, options))


def test_a_game_without_evaluator_is_refused_clearly_by_greedy():
    with pytest.raises(ValueError, match="no evaluator"):
        GreedyAgent().setup({"game": "goofspiel", "seat": 0, "agent_options": {}})


def test_a_third_party_plugin_supplies_an_evaluator(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,tests.support.bot_evaluators")
    found = evaluators.collect_evaluators()
    assert {"goofspiel", "zapotec", "teotihuacan"} <= set(found)
    assert found["goofspiel"].scale == 5.0 and "bot_evaluators" in found["goofspiel"].source
    monkeypatch.setattr(evaluators, "_FOUND", None)
    GreedyAgent().setup({"game": "goofspiel", "seat": 0, "agent_options": {}})  # now it has one


def test_two_evaluators_for_one_game_are_an_error(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "tests.support.bot_evaluators,tests.support.bot_evaluators_clash")
    with pytest.raises(PluginError, match="'zapotec' has two evaluators"):
        evaluators.collect_evaluators()


def test_an_evaluator_naming_an_unknown_setting_is_refused_at_discovery(monkeypatch):
    monkeypatch.setenv(
        "TLACHTLI_PLUGINS", "examples.games.goofspiel.game,tests.support.bot_evaluators_bad_word"
    )
    with pytest.raises(
        PluginError, match=r"bot_evaluators_bad_word.*'goofspiel' evaluator's reward.*'smart'"
    ):
        evaluators.collect_evaluators()


def test_an_evaluator_spec_checks_its_reward():
    with pytest.raises(ValueError, match="evaluator's reward must be one of"):
        EvaluatorSpec(game="goofspiel", evaluate=lambda state: [0.0], reward="nonsense")


@pytest.mark.parametrize("setting", ["greedy_line", "ismcts_policy", "ismcts_rivals_policy"])
def test_a_bots_tuning_checks_each_word_setting(setting):
    with pytest.raises(ValueError, match=f"tuning: {setting} must be one of"):
        Tuning(**{setting: "nonsense"})
    assert Tuning(ismcts_rivals_policy="").ismcts_rivals_policy == ""


def test_think_time_is_a_safe_share_of_the_clock():
    assert think_ms({"move_ms": 100, "bank_ms_left": 0}) == 30
    assert think_ms({"move_ms": 1000, "bank_ms_left": 60000}) == 500 + 1000 - 20
    assert think_ms({"move_ms": 10, "bank_ms_left": 0}) == 1  # never less than a millisecond


def seats_of_a_real_match(*arguments: str) -> list[dict]:
    """The seats `arena play ... --json` reports for a match through the real referee."""
    command = [sys.executable, "-m", "arena.cli", "play", *arguments, "--json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["seats"]


def test_a_real_match_with_a_100_ms_clock_has_no_timeout():
    # Agents think by the clock in each decide message (no budget option): nobody may forfeit.
    # The bank is the slack for a loaded machine: 2 s once drained on CI (4 test workers, 2 cores)
    # although greedy's decisions take <= 31 ms here; 6 s makes ismcts think ~130 ms a decision.
    seats = seats_of_a_real_match("--game", "zapotec", "--agent", "ismcts", "--agent", "greedy",
                                  "--seed", "5", "--move-ms", "100", "--bank-ms", "6000")  # fmt: skip
    assert [s["agent"] for s in seats] == ["ismcts", "greedy"]
    assert [s["fault"] for s in seats] == [None, None]


@pytest.mark.parametrize("bot", ["greedy", "ismcts"])
def test_a_fast_clock_against_teotibot_costs_no_forfeit(bot):
    # greedy's play-outs (~140 ms a Teotihuacan decision here, also ismcts's prior) once
    # overran a 50 ms clock and drained the bank: forfeit after ~20 decisions. Now they are cut.
    seats = seats_of_a_real_match("--game", "teotihuacan", "--agent", bot, "--automaton", "teotibot",
                                  "--seed", "1", "--move-ms", "50", "--bank-ms", "2000")  # fmt: skip
    assert [s["agent"] for s in seats] == [bot, "teotibot"]
    assert [s["fault"] for s in seats] == [None, None]


def test_greedy_skips_its_play_outs_where_the_clock_leaves_no_time_for_them():
    """A decision whose clock leaves ~1 ms (a fast ladder, a drained bank) gets the turn
    look-ahead's choice at once, in greedy and in ismcts's prior; a clock with time gets the
    play-outs, and so does any clock with the option ``clock`` false."""
    state, rng = TEOTIHUACAN.setup(1, 3, {"automaton": "teotibot"}), Random(3)
    while not (state.decision(0).kind == "turn" and len(state.decision(0).options) > 1):
        state.apply(0, rng.randrange(len(state.decision(0).options)))
    message = decide_message(state, 0, 1)
    hurried = {**message, "clock": {"move_ms": 1, "bank_ms_left": 0}}
    fast, relaxed = greedy_for(TEOTIHUACAN, 1, {}, "teotibot"), greedy_for(TEOTIHUACAN, 1, {}, "teotibot")
    within = greedy_for(TEOTIHUACAN, 1, {"turns": 0}, "teotibot")
    assert fast.act(message["obs"], hurried) == within.act(message["obs"], message)
    assert fast.cut_short == 1
    # a minute a move, not the nominal ~1.5 s: a slow machine under load can take that long
    roomy = {**message, "clock": {"move_ms": 60_000, "bank_ms_left": 0}}
    played = relaxed.act(message["obs"], roomy)
    assert relaxed.cut_short == 0 and relaxed.playout_seconds > 0
    unclocked = greedy_for(TEOTIHUACAN, 1, {"clock": False}, "teotibot")
    assert unclocked.act(message["obs"], hurried) == played and unclocked.cut_short == 0
    with pytest.raises(ValueError, match="agent 'greedy': option 'clock' must be bool, got 'no'"):
        greedy_for(TEOTIHUACAN, 1, {"clock": "no"}, "teotibot")
    searcher = ISMCTSAgent()
    searcher.setup(hello_message(TEOTIHUACAN, 0, 1, {"automaton": "teotibot"}, {"seed": 1}))
    assert searcher.greedy is not None  # the evaluator's prior
    searcher.act(message["obs"], hurried)
    assert searcher.greedy.cut_short == 1


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_ismcts_cuts_its_playouts_where_the_evaluator_says_unless_told(game):
    spec = evaluators.find_evaluator(game.id)
    assert spec.depth > 0  # both bundled evaluators name their cut-off
    agent = ISMCTSAgent()
    solo = {"automaton": AUTOMATA[game.id]}
    agent.setup(hello_message(game, 0, 2, solo, {}))
    assert agent.depth == spec.depth
    agent.setup(hello_message(game, 0, 2, solo, {"depth": 0}))
    assert agent.depth == 0  # played to the end


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_ismcts_prior_is_greedys_value_so_one_iteration_takes_greedys_choice(game):
    """``prior``: greedy's value of each root option, counted as visits, leads the selection; with one
    iteration the search takes the option greedy takes on the search's first sample (the same seed),
    its play-outs included (Teotihuacan's ``turns``, in ``prior_samples`` states: Teotihuacan's
    other 2 redrawn by the prior's greedy, seeded by the seat)."""
    solo = {"automaton": AUTOMATA[game.id]}
    state = game.setup(1, 11, solo)
    rng = Random(5)
    choices = []
    samples = tuning_for(game.id).ismcts_prior_samples
    while state.to_act() and len(choices) < 8:
        message = decide_message(state, 0, 1)
        if len(message["options"]) > 1:
            ismcts, greedy = ISMCTSAgent(), GreedyAgent()
            ismcts.setup(hello_message(game, 0, 2, solo, {"seed": 3, "iterations": 1, "prior": 5}))
            greedy.setup(hello_message(game, 0, 2, solo, {"samples": samples}))  # as ismcts's prior's
            values, candidates = greedy.decision_values(game.from_observation(message["obs"], Random(3)))
            choice = max(candidates, key=lambda i: (values[i], -i))  # as greedy decides
            assert ismcts.act(message["obs"], message) == choice
            choices.append(choice)
        state.apply(0, rng.randrange(len(state.decision(0).options)))
    assert len(choices) == 8 and set(choices) != {0}  # real choices, not the first option each time


def test_ismcts_prior_holds_greedys_play_outs_in_teotihuacan():
    """Each root option starts at greedy's value of it as greedy decides: its play-outs for its
    ``top`` 3 (Teotihuacan's ``turns``), the rest at the worst of those."""
    solo = {"automaton": "teotibot"}
    spec = tuning_for(TEOTIHUACAN.id)
    ismcts = ISMCTSAgent()
    # seeded by the seat, as the prior's greedy is
    greedy = greedy_for(TEOTIHUACAN, 0, {"samples": spec.ismcts_prior_samples}, "teotibot")
    ismcts.setup(hello_message(TEOTIHUACAN, 0, 2, solo, {"seed": 3}))
    assert ismcts.prior == spec.ismcts_prior and greedy.turns > 0 and greedy.samples > 1
    state, rng = TEOTIHUACAN.setup(1, 2, solo), Random(2)
    primed = 0
    while primed < 3:
        if state.decision(0).kind == "turn" and len(state.decision(0).options) > 3:
            root = Node(0)
            ismcts.prime(root, state)
            keys = option_keys(0, option_labels(state, 0))
            values, top = greedy.decision_values(state)
            assert [root.children[k].reward / root.children[k].visits for k in keys] == pytest.approx(values)
            assert len(set(values)) > 1 and len(top) == 3
            primed += 1
        state.apply(0, rng.randrange(len(state.decision(0).options)))


def test_ismcts_takes_its_greedy_prior_from_the_games_tuning_unless_told():
    assert tuning_for(TEOTIHUACAN.id).ismcts_prior > 0  # measured: docs/bots.md
    for game in GAMES:
        spec = tuning_for(game.id)
        agent = ISMCTSAgent()
        for given in ({}, {"automaton": AUTOMATA[game.id]}):  # against agents and solo alike
            agent.setup(hello_message(game, 0, 2, given, {}))
            assert agent.prior == spec.ismcts_prior and (agent.greedy is not None) == bool(spec.ismcts_prior)
            if agent.greedy is not None:  # solo, the evaluator's samples; against agents, its rivals' ones
                rivals = not given and spec.ismcts_rivals_prior_samples
                assert agent.greedy.samples == (rivals or spec.ismcts_prior_samples)
        agent.setup(hello_message(game, 0, 2, {}, {"prior": 0}))
        assert agent.prior == 0 and agent.greedy is None  # the option wins: no greedy asked
    agent.setup(hello_message(TEOTIHUACAN, 0, 2, {}, {"prior_samples": 2}))
    assert agent.greedy is not None and agent.greedy.samples == 2
    assert agent.greedy.plies == tuning_for(TEOTIHUACAN.id).greedy_plies  # its own
    agent.setup(hello_message(TEOTIHUACAN, 0, 2, {}, {"prior_plies": 3}))
    assert agent.greedy is not None and agent.greedy.plies == 3
    for name in ("prior_samples", "prior_plies"):
        with pytest.raises(ValueError, match=f"agent 'ismcts': option '{name}' must be >= 1"):
            agent.setup(hello_message(TEOTIHUACAN, 0, 2, {}, {name: 0}))


def test_ismcts_takes_the_rivals_cut_off_only_where_other_agents_decide():
    spec = evaluators.find_evaluator(ZAPOTEC.id)
    assert spec.rivals_depth and spec.rivals_depth != spec.depth
    agent = ISMCTSAgent()
    for players, given, expected in (
        (2, {"automaton": "cocijobot"}, spec.depth),  # solo: Cocijobot plays inside apply
        (2, {}, spec.rivals_depth),
        (3, {}, spec.rivals_depth),
    ):
        agent.setup(hello_message(ZAPOTEC, 0, players, given, {}))
        assert agent.depth == expected
    agent.setup(hello_message(ZAPOTEC, 0, 2, {}, {"depth": 3}))
    assert agent.depth == 3  # the option wins
    teotihuacan = evaluators.find_evaluator(TEOTIHUACAN.id)
    agent.setup(hello_message(TEOTIHUACAN, 0, 2, {}, {}))
    assert agent.depth == teotihuacan.depth  # no rivals_depth: one cut-off everywhere


def test_ismcts_takes_its_playout_policy_from_the_games_tuning_unless_told(monkeypatch):
    spec = tuning_for(ZAPOTEC.id)
    assert (spec.ismcts_policy, spec.ismcts_rivals_policy) == ("mast", "")  # measured: docs/bots.md
    agent = ISMCTSAgent()
    for players, given in ((2, {"automaton": "cocijobot"}), (2, {}), (3, {})):
        agent.setup(hello_message(ZAPOTEC, 0, players, given, {}))
        assert agent.policy == "mast"  # against Cocijobot and against other agents alike
    agent.setup(hello_message(ZAPOTEC, 0, 2, {"automaton": "cocijobot"}, {"policy": "random"}))
    assert agent.policy == "random"  # the option wins
    # a tuning naming a policy for matches with other agents gets it there, not solo
    monkeypatch.setitem(tuning.TUNING, ZAPOTEC.id, replace(spec, ismcts_rivals_policy="random"))
    for players, given, expected in (
        (2, {"automaton": "cocijobot"}, "mast"),  # solo: Cocijobot plays inside apply
        (2, {}, "random"),
        (3, {}, "random"),
    ):
        agent.setup(hello_message(ZAPOTEC, 0, players, given, {}))
        assert agent.policy == expected
    teotihuacan = tuning_for(TEOTIHUACAN.id)
    assert (teotihuacan.ismcts_policy, teotihuacan.ismcts_rivals_policy) == ("random", "")
    agent.setup(hello_message(TEOTIHUACAN, 0, 2, {"automaton": "teotibot"}, {}))
    assert agent.policy == "random"


def test_the_reward_comes_from_the_evaluator_unless_told():
    for game, default in ((TEOTIHUACAN, "gain"), (ZAPOTEC, "win")):
        agent = ISMCTSAgent()
        agent.setup(hello_message(game, 0, 2, {}, {}))
        assert agent.reward == default == evaluators.find_evaluator(game.id).reward
        agent.setup(hello_message(game, 0, 2, {}, {"reward": "win" if default == "gain" else "gain"}))
        assert agent.reward != default


def test_a_gain_reward_without_evaluator_is_refused():
    hello = {"game": "goofspiel", "seat": 0, "agent_options": {"reward": "gain"}}
    with pytest.raises(ValueError, match="'reward' win"):
        ISMCTSAgent().setup(hello)


def solo_teotihuacan_turns():
    """The positions of one solo Teotihuacan game (random moves) where seat 0 has more than 3
    options, each with seat 0's margin by the evaluator."""
    spec = evaluators.find_evaluator("teotihuacan")
    state, rng = TEOTIHUACAN.setup(1, 3, {"automaton": "teotibot"}), Random(1)
    while state.to_act():
        seat = state.to_act()[0]
        count = len(state.decision(seat).options)
        if seat == 0 and count > 3:
            yield state, evaluators.seat_margin(spec.evaluate(state), 0)
        state.apply(seat, rng.randrange(count))


def far_behind_teotibot():
    """A solo Teotihuacan position (random moves so far) where seat 0 trails Teotibot by 40+ points."""
    state = next(state for state, margin in solo_teotihuacan_turns() if margin < -40)
    return state, evaluators.find_evaluator("teotihuacan")


def test_a_gain_reward_still_tells_choices_apart_far_behind():
    state, spec = far_behind_teotibot()
    means = {}
    for reward in ("win", "gain"):
        agent = ISMCTSAgent()
        agent.setup(
            hello_message(TEOTIHUACAN, 0, 2, {"automaton": "teotibot"}, {"iterations": 200, "reward": reward})
        )
        message = decide_message(state, 0, 1)
        agent.act(message["obs"], message)
        means[reward] = [child.reward / child.visits for child in agent.root.children.values()]
        if reward == "gain":  # centred on where the evaluator puts seat 0 now
            assert agent.centres[0] == evaluators.seat_margin(spec.evaluate(state), 0)
    # Squashed around 0, every choice is worth ~0 (a lost game): the search has nothing to go on.
    assert max(means["win"]) < 0.02 and max(means["win"]) - min(means["win"]) < 0.01
    # Squashed around the root's margin, the choices differ clearly.
    assert min(means["gain"]) > 0.05 and max(means["gain"]) - min(means["gain"]) > 0.03


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_win_share_mixes_the_outcome_into_the_reward(share):
    """Played to the end (``depth`` 0), each iteration's reward is ``share`` times the outcome
    (1 won, 0.5 level, 0 lost) plus the rest times the squashed margin: with the share 1, every
    node's summed reward is a whole number of halves; with 0, the margins' squash shows."""
    state = ZAPOTEC.setup(1, 5, {"automaton": "cocijobot"})
    agent = ISMCTSAgent()
    options = {"iterations": 40, "depth": 0, "win_share": share, "seed": 3}
    agent.setup(hello_message(ZAPOTEC, 0, 2, {"automaton": "cocijobot"}, options))
    message = decide_message(state, 0, 1)
    agent.act(message["obs"], message)
    sums = [child.reward for child in agent.root.children.values()]
    assert sum(child.visits for child in agent.root.children.values()) == 40
    halves = [abs(2 * total - round(2 * total)) < 1e-9 for total in sums]
    assert all(halves) == (share == 1.0)


def test_a_mean_reward_is_centred_on_the_playouts_mean_margin_and_carried_on():
    # At Zapotec's first turn the fitted evaluator puts the player ~30 points behind Cocijobot
    # (it was fitted on weaker play): squashed around 0 every choice is worth ~0; squashed around
    # the playouts' own mean margin the rewards sit around 0.5 and tell the choices apart.
    state = ZAPOTEC.setup(1, 7, {"automaton": "cocijobot"})
    message = decide_message(state, 0, 1)
    means, choice = {}, 0
    for reward in ("win", "mean"):
        agent = ISMCTSAgent()
        options = {"iterations": 200, "reward": reward, "seed": 2}
        agent.setup(hello_message(ZAPOTEC, 0, 2, {"automaton": "cocijobot"}, options))
        choice = agent.act(message["obs"], message)
        means[reward] = [child.reward / child.visits for child in agent.root.children.values()]
    assert max(means["win"]) < 0.05
    assert 0.3 < sum(means["mean"]) / len(means["mean"]) < 0.7
    assert max(means["mean"]) - min(means["mean"]) > 0.1
    # Every playout counted into the centre; at the next decision the mean so far counts as CARRY
    # playouts, and that decision's are added to them.
    assert agent.margin_count == 200
    mean = agent.margin_sums[0] / 200
    state.apply(0, choice)
    while 0 not in state.to_act() or len(state.decision(0).options) < 2:
        state.apply(state.to_act()[0], 0)
    after = decide_message(state, 0, 2)
    agent.carry_mean()
    assert agent.margin_count == CARRY and agent.margin_sums[0] == pytest.approx(mean * CARRY)
    agent.act(after["obs"], after)
    assert agent.margin_count == CARRY + 200


def test_a_mean_reward_squashes_greedys_prior_around_the_same_centre():
    # Teotihuacan's search starts from greedy's values (3000 visits each): squashed around 0 while
    # 40+ points behind they would all be ~0, whatever the search's own centre.
    state, spec = far_behind_teotibot()
    agent = ISMCTSAgent()
    agent.setup(
        hello_message(TEOTIHUACAN, 0, 2, {"automaton": "teotibot"}, {"iterations": 10, "reward": "mean"})
    )
    message = decide_message(state, 0, 1)
    agent.act(message["obs"], message)
    assert agent.greedy.centre == evaluators.seat_margin(spec.evaluate(state), 0) < -40
    means = [child.reward / child.visits for child in agent.root.children.values()]
    assert min(means) > 0.05 and max(means) - min(means) > 0.03


def test_a_gain_reward_is_centred_on_each_decision_even_when_the_subtree_is_reused():
    # Solo, every decision reuses the tree (nobody else is asked), so a centre kept with the
    # tree would be the first turn's for the whole game.
    agent = ISMCTSAgent()
    agent.setup(
        hello_message(TEOTIHUACAN, 0, 2, {"automaton": "teotibot"}, {"iterations": 20, "reward": "gain"})
    )
    centres, margins = [], []
    for decide_id, (state, margin) in enumerate(islice(solo_teotihuacan_turns(), 12), start=1):
        message = decide_message(state, 0, decide_id)
        agent.act(message["obs"], message)
        centres.append(agent.centres[0])
        margins.append(margin)
    assert agent.reused == len(margins) - 1  # consecutive ids: the subtree was kept every time
    assert centres == margins and max(margins) - min(margins) > 10


def test_discovering_the_agents_imports_no_engine():
    # Every exec'd Python bot discovers the plugins at start-up; the bundled evaluators must not
    # drag both rules engines in with them (that doubled a `random` bot's start-up CPU time).
    code = (
        "import sys; from arena.registry.plugins import discover; discover(games=False).agent('random');"
        "print(sorted(m for m in sys.modules if m.startswith('engine.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert not any(
        name.startswith(("engine.teotihuacan", "engine.zapotec"))
        for name in json.loads(out.stdout.replace("'", '"'))
    )


def test_greedy_look_ahead_ends_with_its_turn_against_cocijobot():
    # Cocijobot is never asked, so only the evaluator's turn_start ends the look-ahead: after a
    # card pick, the rest of that turn is played and the state waits at the next pick (or the end).
    agent = GreedyAgent()
    agent.setup(hello_message(ZAPOTEC, 0, 1, {"automaton": "cocijobot"}, {"seed": 1}))
    state = ZAPOTEC.setup(1, 6, {"automaton": "cocijobot"})
    assert state.decision(0).kind == "choose-card"
    after = agent.rest_of_turn(state, 0)
    assert after.observation(0)["round"] == 2 and after.decision(0).kind == "choose-card"


def test_greedy_look_ahead_ends_with_its_turn_against_teotibot():
    # Teotibot plays inside apply, so only turn_start ("turn") ends the look-ahead; a turn
    # decision asked again within the turn (after paying to unlock, or an instant tile) opens no
    # new turn (the evaluator's turn_count): the look-ahead goes on through that turn.
    agent = greedy_for(TEOTIHUACAN, 1, {}, "teotibot")
    state, rng = TEOTIHUACAN.setup(1, 1, {"automaton": "teotibot"}), Random(1)
    checked = again = 0
    while state.to_act() and again == 0:
        decision = state.decision(0)
        if decision.kind == "turn":
            for choice, option in enumerate(decision.options):
                after = agent.rest_of_turn(state, choice)
                assert after.terminal() or after.decision(0).kind == "turn"
                assert after.terminal() or after.turns > state.turns, option["label"]
                checked += 1
                once = state.clone()
                once.apply(0, choice)
                if once.to_act() == (0,) and once.decision(0).kind == "turn" and once.turns == state.turns:
                    again += 1  # e.g. "pay 3 cocoa to unlock ...": the same turn asks again
        state.apply(0, rng.randrange(len(decision.options)))
    assert checked > 5 and again == 1


def greedy_for(game: Game, seed: int, options: dict, automaton: str = "cocijobot") -> GreedyAgent:
    agent = GreedyAgent()
    agent.setup(hello_message(game, 0, 1, {"automaton": automaton}, {"seed": seed, **options}))
    return agent


def test_greedy_takes_its_search_defaults_from_the_evaluator_and_options_override_them():
    assert (greedy_for(ZAPOTEC, 1, {}).plies, greedy_for(ZAPOTEC, 1, {}).width) == (5, 3)
    teotihuacan = greedy_for(TEOTIHUACAN, 1, {}, "teotibot")
    assert (teotihuacan.plies, teotihuacan.width) == (2, 3)
    assert (teotihuacan.turns, teotihuacan.top) == (2, 3)
    assert greedy_for(ZAPOTEC, 1, {}).turns == 0
    assert greedy_for(ZAPOTEC, 1, {"plies": 2, "width": 0}).plies == 2
    for bad, expected in (
        ({"plies": 0}, "must be >= 1, got 0"),
        ({"width": -1}, "must be >= 0, got -1"),
        ({"turns": -1}, "must be >= 0, got -1"),
        ({"top": 0}, "must be >= 1, got 0"),
        ({"top": "3"}, "must be int, got '3'"),
    ):
        with pytest.raises(ValueError, match=f"agent 'greedy': option '{next(iter(bad))}' {expected}"):
            greedy_for(ZAPOTEC, 1, bad)


def test_greedy_plays_its_best_options_on_through_its_next_turns_against_teotibot():
    """With ``turns`` (Teotihuacan's default) an option's play-out ends where the seat's turn after
    those opens: its turn and Teotibot's, ``turns`` + 1 times (the turn count, every seat's, up by
    twice that; with ``turns`` 0 by 2, where the look-ahead ends). Greedy then chooses among the
    ``top`` 3 options by the turn's look-ahead, by their play-outs: along a seeded game, not
    always the look-ahead's own choice; the rest are valued as the worst of those."""
    on = greedy_for(TEOTIHUACAN, 1, {}, "teotibot")
    within = greedy_for(TEOTIHUACAN, 1, {"turns": 0}, "teotibot")
    state, rng = TEOTIHUACAN.setup(1, 1, {"automaton": "teotibot"}), Random(1)
    compared = differed = 0
    while state.to_act() and compared < 8:
        count = len(state.decision(0).options)
        if state.decision(0).kind == "turn" and count > 1:
            for agent in (on, within):
                played = agent.play_on(state, 0)
                assert played.decision(0).kind == "turn" and played.turns == state.turns + 2 * (
                    agent.turns + 1
                )
            (look_ahead, every), (play_outs, top) = within.decision_values(state), on.decision_values(state)
            assert look_ahead == within.option_values(state) and every == list(range(count))
            assert top == sorted(range(count), key=lambda i: (-look_ahead[i], i))[:3]
            worst = min(play_outs[i] for i in top)  # the rest valued as the worst play-out (ismcts's prior)
            assert all(play_outs[i] == worst for i in range(count) if i not in top)
            best = max(top, key=lambda i: (play_outs[i], -i))
            differed += best != max(range(count), key=lambda i: (look_ahead[i], -i))
            compared += 1
        state.apply(0, rng.randrange(count))
    assert compared == 8 and differed > 0, differed


def test_greedy_samples_play_each_option_on_in_the_same_redrawn_states():
    """With ``samples`` k each of the ``top`` options is played on in k states, the same for all
    of them: the one given and k - 1 with the hidden parts and the chance to come redrawn from it
    (``determinize``, with the agent's seeded generator); its value is the mean of those rewards."""
    state, rng = TEOTIHUACAN.setup(1, 3, {"automaton": "teotibot"}), Random(3)
    while not (state.decision(0).kind == "turn" and len(state.decision(0).options) > 1):
        state.apply(0, rng.randrange(len(state.decision(0).options)))
    sampled = greedy_for(TEOTIHUACAN, 3, {"samples": 3}, "teotibot")
    one = greedy_for(TEOTIHUACAN, 3, {"samples": 1}, "teotibot")
    drawn = Random(3)  # the agent's generator, seeded as in setup()
    states = [state] + [state.determinize(0, drawn) for _ in range(2)]
    values, top = sampled.decision_values(state)
    for i in top:
        rewards = [one.reward(one.play_on(sample, i)) for sample in states]
        assert values[i] == pytest.approx(sum(rewards) / 3)
    assert len({one.reward(one.play_on(sample, top[0])) for sample in states}) > 1  # the draws matter
    assert one.decision_values(state)[0][top[0]] == one.reward(one.play_on(state, top[0]))  # 1: the one given
    with pytest.raises(ValueError, match="agent 'greedy': option 'samples' must be >= 1"):
        greedy_for(TEOTIHUACAN, 3, {"samples": 0}, "teotibot")


def test_greedy_keep_plays_only_the_best_on_the_first_sample_on_in_the_others():
    """With ``keep`` k below ``top``, all ``top`` options are played on in the first state and
    only the k best there in the redrawn ones (a round of sequential halving): a finalist is worth
    the mean of all its samples, a dropped option its one reward but no more than the worst
    finalist. ``ismcts``'s ``prior_keep`` is its prior's ``keep``."""
    state, rng = TEOTIHUACAN.setup(1, 3, {"automaton": "teotibot"}), Random(3)
    while not (state.decision(0).kind == "turn" and len(state.decision(0).options) > 1):
        state.apply(0, rng.randrange(len(state.decision(0).options)))
    halving = greedy_for(TEOTIHUACAN, 3, {"samples": 3, "keep": 1}, "teotibot")
    one = greedy_for(TEOTIHUACAN, 3, {"samples": 1}, "teotibot")
    drawn = Random(3)  # the agent's generator, seeded as in setup()
    states = [state] + [state.determinize(0, drawn) for _ in range(2)]
    values, finalists = halving.decision_values(state)
    look_ahead = one.option_values(state)
    top = sorted(range(len(look_ahead)), key=lambda i: (-look_ahead[i], i))[:3]
    first = {i: one.reward(one.play_on(state, i)) for i in top}
    (best,) = finalists
    assert best == max(top, key=lambda i: (first[i], -top.index(i)))
    mean = sum(one.reward(one.play_on(sample, best)) for sample in states) / 3
    assert values[best] == pytest.approx(mean)
    for i in top:
        if i != best:
            assert values[i] == pytest.approx(min(first[i], mean))
    # keep as large as top plays every option on in every sample, as without it
    assert (
        greedy_for(TEOTIHUACAN, 3, {"samples": 3, "keep": 3}, "teotibot").decision_values(state)[0]
        == (greedy_for(TEOTIHUACAN, 3, {"samples": 3}, "teotibot").decision_values(state)[0])
    )
    with pytest.raises(ValueError, match="agent 'greedy': option 'keep' must be >= 1"):
        greedy_for(TEOTIHUACAN, 3, {"keep": 0}, "teotibot")
    searcher = ISMCTSAgent()
    searcher.setup(hello_message(TEOTIHUACAN, 0, 2, {"automaton": "teotibot"}, {"prior_keep": 2}))
    assert searcher.greedy is not None and (searcher.greedy.keep, searcher.greedy.samples) == (2, 3)


def two_player_greedy(seat: int, options: dict) -> GreedyAgent:
    agent = GreedyAgent()
    agent.setup(hello_message(TEOTIHUACAN, seat, 2, {}, {"seed": 1, **options}))
    return agent


def test_greedy_plays_on_through_the_other_seats_turns_with_greedys_choices_for_them():
    """Where another agent decides, a play-out goes on through that seat's turns, each of its
    decisions greedy's choice for that seat (an opponent model), and ends where the seat's turn
    after its next ``turns`` opens (the turn count up by 2 per round, as against Teotibot);
    ``rivals`` "stop" ends it where the other seat is first asked (the look-ahead's end)."""
    modelled, stopped = two_player_greedy(0, {"turns": 1}), two_player_greedy(0, {"rivals": "stop"})
    once = two_player_greedy(0, {"turns": 0})
    rival = two_player_greedy(1, {})  # seat 1's own greedy: what the model must choose for it
    state, rng = TEOTIHUACAN.setup(2, 7, {}), Random(7)
    checked = 0
    while state.to_act() and checked < 5:
        seat = state.to_act()[0]
        count = len(state.decision(seat).options)
        if seat == 0 and state.decision(0).kind == "turn" and count > 1:
            played = modelled.play_on(state, 0)
            assert played.to_act() == (0,) and played.decision(0).kind == "turn"
            assert played.turns == state.turns + 4
            cut = stopped.play_on(state, 0)
            assert cut.to_act() == (1,) and cut.turns == state.turns + 1
            # turns 0, by hand: the rest of the own turn greedy's choices, then seat 1's as its greedy's
            by_hand = state.clone()
            by_hand.apply(0, 0)
            while by_hand.to_act() == (0,) and by_hand.turns == state.turns:
                by_hand.apply(0, once.choice(by_hand, state.turns))
            while by_hand.to_act() == (1,):
                by_hand.apply(1, rival.choice(by_hand))
            assert once.play_on(state, 0).observation(0) == by_hand.observation(0)
            checked += 1
        state.apply(seat, rng.randrange(count))
    assert checked == 5
    with pytest.raises(ValueError, match="'rivals' must be one of \\['greedy', 'stop'\\]"):
        two_player_greedy(0, {"rivals": "random"})


def test_greedy_line_step_plays_each_play_out_decision_one_step_ahead_for_every_seat():
    """With ``line`` "step" each decision of a play-out, the seat's own and the rival's, is the
    option best right after it by the evaluator (ties to the lowest index): in 2-player Zapotec,
    whose rounds open with a card chosen by both seats at once, the play-out is the rest of the
    round, ending there. "turn" (the default) takes greedy's look-ahead choice instead."""
    spec = evaluators.find_evaluator(ZAPOTEC.id)
    assert spec is not None and tuning_for(ZAPOTEC.id).greedy_line == "turn"

    def zapotec_greedy(seat: int, options: dict) -> GreedyAgent:
        agent = GreedyAgent()
        agent.setup(hello_message(ZAPOTEC, seat, 2, {}, {"seed": 1, **options}))
        return agent

    def best_step(state, seat: int) -> int:  # by hand: the evaluator's margin right after each option
        def reward(choice: int) -> float:
            after = state.clone()
            after.apply(seat, choice)
            return evaluators.seat_reward(spec.evaluate(after), seat, spec.scale)

        return max(range(len(state.decision(seat).options)), key=lambda i: (reward(i), -i))

    step, turn = zapotec_greedy(0, {"turns": 1, "line": "step"}), zapotec_greedy(0, {})
    assert turn.line == "turn"
    state, rng = ZAPOTEC.setup(2, 7, {}), Random(7)
    checked = rival_moves = 0
    while state.to_act() and checked < 4:
        seat = state.to_act()[0]
        count = len(state.decision(seat).options)
        if state.to_act() == (0,) and count > 1 and state.decision(0).kind == "construction":
            assert step.line_choice(state) == best_step(state, 0)
            assert turn.line_choice(state) == turn.choice(state)
            by_hand = state.clone()
            by_hand.apply(0, 0)
            while len(by_hand.to_act()) == 1:
                (mover,) = by_hand.to_act()
                by_hand.apply(mover, best_step(by_hand, mover))
                rival_moves += mover == 1
            played = step.play_on(state, 0)
            assert played.to_act() == by_hand.to_act() and played.observation(0) == by_hand.observation(0)
            assert played.terminal() or played.decision(0).kind == "choose-card"
            checked += 1
        state.apply(seat, rng.randrange(count))
    assert checked == 4 and rival_moves > 0  # the rival's turn was played inside some play-out
    with pytest.raises(ValueError, match="'line' must be one of \\['turn', 'step'\\]"):
        zapotec_greedy(0, {"line": "random"})


def test_greedy_playing_on_chooses_the_same_for_the_same_seed():
    state, rng = TEOTIHUACAN.setup(1, 5, {"automaton": "teotibot"}), Random(5)
    # clock false: under load the nominal clock can cut one agent's play-outs and not the other's
    first, second = (greedy_for(TEOTIHUACAN, 5, {"clock": False}, "teotibot") for _ in range(2))
    asked = 0
    while state.to_act() and asked < 6:
        if len(state.decision(0).options) > 1:
            message = decide_message(state, 0, asked + 1)
            assert first.act(message["obs"], message) == second.act(message["obs"], message)
            asked += 1
        state.apply(0, rng.randrange(len(state.decision(0).options)))
    assert asked == 6


def test_greedy_search_never_values_an_option_below_its_one_step_line_and_changes_choices():
    """The searched lines include the one-step continuation (its option is always among the
    ``width`` best one step ahead), so an option searched is worth at least what plies=1 says;
    and along a seeded game against Cocijobot (played by plies=1) the search chooses differently."""
    searched, one_step = greedy_for(ZAPOTEC, 3, {}), greedy_for(ZAPOTEC, 3, {"plies": 1})
    state = ZAPOTEC.setup(1, 3, {"automaton": "cocijobot"})
    compared = differed = 0
    while state.to_act():
        count = len(state.decision(0).options)
        choice = 0
        if count > 1:
            deep = [searched.value_of(state, i) for i in range(count)]
            flat = [one_step.value_of(state, i) for i in range(count)]
            assert all(d >= f - 1e-12 for d, f in zip(deep, flat, strict=True))
            choice = max(range(count), key=lambda i: (flat[i], -i))
            differed += choice != max(range(count), key=lambda i: (deep[i], -i))
            compared += 1
        state.apply(0, choice)
    assert compared >= 10 and differed > 0, (compared, differed)


def test_greedy_with_search_replays_a_seeded_game_against_cocijobot():
    games = [
        # a smaller search than the default (5 plies, width 3), the same code: half the time
        play_in_process(
            ZAPOTEC, [GreedyAgent()], 11, agent_options=[{"seed": 11, "plies": 3}], automaton="cocijobot"
        )
        for _ in range(2)
    ]
    assert games[0].result().scores == games[1].result().scores
    assert [e["text"] for e in games[0].log()] == [e["text"] for e in games[1].log()]
