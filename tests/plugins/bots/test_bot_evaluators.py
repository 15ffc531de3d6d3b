"""What the bundled evaluators know: Zapotec's "if the game ended now" equals the engine's end
scoring; each prefers the clearly better of two positions that differ in one thing."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.teotihuacan.observation import PublicView
from engine.zapotec import GAME as ZAPOTEC
from engine.zapotec.rules import house_count, place_house
from engine.zapotec.scoring import end_game
from plugins.bots import teotihuacan_eval, zapotec_eval


def random_positions(game, players: int, seed: int, options: dict, every: int):
    """Positions along one seeded random game, one every ``every`` decisions."""
    state = game.setup(players, seed, options)
    rng = Random(seed)
    step = 0
    while state.to_act():
        if step % every == 0:
            yield state.clone()
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
        step += 1


@pytest.mark.parametrize("players", [1, 2, 3])
def test_zapotec_end_points_are_what_the_end_scoring_adds(players):
    checked = 0
    for seed in range(4):
        for state in random_positions(ZAPOTEC, players, seed, {}, 3):
            ended = state.clone()
            end_game(ended)
            added = [ended.score[s] - state.score[s] for s in range(state.seats)]
            assert zapotec_eval.end_points(state) == added
            checked += 1
    assert checked > 20


def late_zapotec_position(seed: int):
    """A solo position in the last round, where the end scoring is near."""
    for state in random_positions(ZAPOTEC, 1, seed, {}, 1):
        if state.round == 5:
            return state
    raise AssertionError("no last round")


def test_zapotec_values_a_ritual_disc_that_scores():
    state = late_zapotec_position(1)  # this deal shows the leftover-resources Ritual
    kinds = [state.data.rituals[card].kind for card in state.ritual_cards]
    slot = kinds.index("leftover_resources")
    # A disc on it is worth what the card pays for the seat's leftovers.
    richer = state.clone()
    richer.res[0] = [r + 2 for r in richer.res[0]]
    richer.ritual_discs[slot] = [s for s in richer.ritual_discs[slot] if s != 0]
    with_disc = richer.clone()
    with_disc.ritual_discs[slot].append(0)
    assert zapotec_eval.evaluate(with_disc)[0] > zapotec_eval.evaluate(richer)[0] + 5


def test_zapotec_values_a_complete_pyramid_over_an_unfinished_one():
    state = late_zapotec_position(1)
    # Seat 0 alone holds one Pyramid: large + medium + small (complete) versus large + medium.
    state.pyr_tile.append(state.scoring_avail[0] if state.scoring_avail else 0)
    state.pyr_pieces.append([0, 1])
    state.built_pieces[0] += 2
    complete = state.clone()
    complete.pyr_pieces[-1].append(2)
    complete.built_pieces[0] += 1
    mine = zapotec_eval.evaluate(complete)[0] - zapotec_eval.evaluate(state)[0]
    assert (
        mine >= 3 * 5 - 2 * zapotec_eval.PLAYER["open_pieces"]
    )  # three completion bonuses, less the two expected


def test_zapotec_weights_name_every_feature():
    for table in (zapotec_eval.PLAYER, zapotec_eval.COCIJOBOT):
        assert set(table) == set(zapotec_eval.FEATURES)
    assert len(zapotec_eval.features(late_zapotec_position(1))[0]) == len(zapotec_eval.FEATURES)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_zapotec_turns_and_turn_vp_forecast_the_turn_scorings_to_come(players):
    """``turns`` is the number of turn scorings a seat still has (Cocijobot's too), and
    ``turn_vp`` what this round's one pays if the seat's Houses stay as they are."""
    names = zapotec_eval.FEATURES
    turns, turn_vp = names.index("turns"), names.index("turn_vp")
    checked = 0
    for seed in range(2):
        positions = list(random_positions(ZAPOTEC, players, seed, {}, 1))
        final = positions[-1]
        while final.to_act():  # play the last position on to the end (random_positions stops before it)
            seat = final.to_act()[0]
            final.apply(seat, 0)
        scorings = [e for e in final.log() if e.get("kind") == "turn-score"]
        for state in positions[::2]:
            done = len(state.log())
            ahead = [e for e in final.log()[done:] if e.get("kind") == "turn-score"]
            rows = zapotec_eval.features(state)
            for seat, row in enumerate(rows):
                mine = [e for e in ahead if e["seat"] == seat]
                assert row[turns] == len(mine)
                this_round = [e for e in mine if e["round"] == state.round]
                houses = house_count(state, seat, state.data.action_cards[state.bonus[-1]].prop)
                assert row[turn_vp] == (state.data.turn_vp_per_house * houses if this_round else 0)
                checked += 1
        assert len(scorings) == 5 * final.seats
    assert checked > 50


def test_zapotec_a_house_built_early_counts_for_the_turn_scorings_to_come():
    """A House built in the first round pays 2 VP at each later turn whose bonus card matches one
    of its three properties: worth about two-thirds of a VP per later round at least (the fit
    alone said ~0.06; the evaluator sets it by hand)."""
    state = next(s for s in random_positions(ZAPOTEC, 1, 3, {}, 1) if s.round == 1 and s.step == "build")
    free = next(i for i, tile in enumerate(state.space_tile) if tile >= 0 and state.space_owner[i] < 0)
    built = state.clone()
    place_house(built, 0, free, palace=False)
    gained = zapotec_eval.evaluate(built)[0] - zapotec_eval.evaluate(state)[0]
    later_rounds = state.data.rounds - state.round
    assert gained >= later_rounds * 2 / 3


def test_zapotec_fitted_weights_value_resources_less_near_the_end():
    """A priest in the first round is worth what it builds; in the last turn, only its leftover
    value: the fitted weights must say so."""
    positions = list(random_positions(ZAPOTEC, 1, 2, {}, 1))
    early = next(s for s in positions if s.round == 1 and s.step != "pick")
    late = positions[-1]  # the last decision of the game: its last turn
    assert late.round == 5
    worth = []
    for state in (early, late):
        richer = state.clone()
        richer.res[0][zapotec_eval.PRIEST] += 1
        worth.append(zapotec_eval.evaluate(richer)[0] - zapotec_eval.evaluate(state)[0])
    assert worth[0] > worth[1] + 1.0


def teotihuacan_positions(players: int, seeds=range(3), every: int = 5, modules: str = ""):
    options = {"automaton": "teotibot"} if players == 1 else {}
    if modules:
        options["modules"] = modules
    for seed in seeds:
        yield from random_positions(TEOTIHUACAN, players, seed, options, every)


@pytest.mark.parametrize(("players", "modules"), [(1, ""), (2, ""), (3, ""), (2, "height")])
def test_teotihuacan_features_read_what_the_engine_scores(players, modules):
    """The evaluator's own copies of the engine's sums (it reads the public view only) give what
    the engine gives: Temple Bonus tiles, mask sets, salary due."""
    from engine.teotihuacan.observation import PublicView
    from engine.teotihuacan.rules.calendar import bonus_score, salary_due
    from engine.teotihuacan.rules.effects import mask_score

    names = teotihuacan_eval.FEATURES
    checked = 0
    for state in teotihuacan_positions(players, modules=modules):
        rows = teotihuacan_eval.features(PublicView(state))
        eclipses_left = max(1, 3 - state.eclipses)
        for seat, row in enumerate(rows):
            f = dict(zip(names, row, strict=True))
            if not modules:  # (a module may adjust what masks score at an Eclipse)
                assert f["masks_ecl"] == mask_score(state, seat) * eclipses_left
            if seat != state.bot:
                assert f["bonus_now"] == bonus_score(state, seat)
                assert f["salary_short"] == max(0, salary_due(state, seat) - state.cocoa[seat])
            checked += 1
    assert checked > 50


def test_teotihuacan_weights_name_every_feature():
    for table in (teotihuacan_eval.PLAYER, teotihuacan_eval.TEOTIBOT):
        assert set(table) == set(teotihuacan_eval.FEATURES)
    # evaluate_public pairs weights and a row without a length check: every row must be whole
    state = next(iter(teotihuacan_positions(1, seeds=[2], every=1)))
    for row in teotihuacan_eval.features(PublicView(state)):
        assert len(row) == len(teotihuacan_eval.FEATURES)


def test_teotihuacan_resources_are_worth_less_near_the_end():
    """Gold early is worth what it buys; gold at the final Eclipse is worth nothing to a player
    (and 1 VP to Teotibot): the fitted weights must say so."""
    positions = list(teotihuacan_positions(1, seeds=[2], every=1))
    early = next(s for s in positions if s.eclipses == 0 and s.turns > 4)
    late = next(s for s in positions if s.eclipses == 2 and s.pending >= 0)
    worth = []
    for state in (early, late):
        richer = state.clone()
        richer.res[2] += 2  # seat 0's gold
        worth.append(teotihuacan_eval.evaluate(richer)[0] - teotihuacan_eval.evaluate(state)[0])
    assert worth[0] > 1.0
    assert worth[1] < worth[0] - 1.0
    assert abs(worth[1]) < 1.5


def test_teotihuacan_values_an_avenue_step_and_a_missing_salary():
    positions = teotihuacan_positions(1, seeds=[2], every=1)
    state = next(s for s in positions if s.eclipses == 0 and s.turns > 4)
    further = state.clone()
    further.avenue[0] += 1
    gained = teotihuacan_eval.evaluate(further)[0] - teotihuacan_eval.evaluate(state)[0]
    assert gained > 3  # an Avenue step pays at every Eclipse left
    assert teotihuacan_eval.evaluate(further)[1] == teotihuacan_eval.evaluate(state)[1]
    poorer = state.clone()
    poorer.cocoa[0] = 0
    richer = state.clone()
    richer.cocoa[0] = 8
    assert teotihuacan_eval.evaluate(poorer)[0] < teotihuacan_eval.evaluate(richer)[0]


def test_teotihuacan_first_evaluator_kept_for_comparison():
    state = next(teotihuacan_positions(1, seeds=[2], every=10))
    assert len(teotihuacan_eval.evaluate_v1(state)) == 2


def test_zapotec_values_building_tiles_lined_up_for_income():
    """Income is one row or column of the grid (1 + 2 per tile on it): two tiles on one line pay
    more than two tiles spread out, by ``INCOME_LINE`` per tile on the best lines (their mean over
    the three basic resources) per income still to come; the fitted ``grid_t`` sees no difference."""
    state = ZAPOTEC.setup(1, 5, {})
    assert state.step == "pick" and state.round == 1 and all(cell < 0 for cell in state.grid[0])
    lined, spread = state.clone(), state.clone()
    lined.grid[0][0], lined.grid[0][1] = 0, 1  # both in the first row
    spread.grid[0][0], spread.grid[0][4] = 0, 1  # different rows and columns
    assert zapotec_eval.best_lines(lined, 0) == 1.0 and zapotec_eval.best_lines(spread, 0) == 2 / 3
    assert zapotec_eval.incomes_left(state, 0) == state.data.rounds
    gained = zapotec_eval.evaluate(lined)[0] - zapotec_eval.evaluate(spread)[0]
    assert gained == pytest.approx(zapotec_eval.INCOME_LINE * state.data.rounds / 3)
    assert zapotec_eval.evaluate(lined)[1] == zapotec_eval.evaluate(spread)[1]  # Cocijobot's own


def test_zapotec_an_income_collected_no_longer_counts():
    """Once a seat's income step of the round is done, the lines forecast one income fewer."""
    for state in random_positions(ZAPOTEC, 1, 2, {}, 1):
        if state.round == 2 and state.current == 0 and state.step == "capital":
            break
    else:
        raise AssertionError("no capital step in round 2")
    assert zapotec_eval.incomes_left(state, 0) == state.data.rounds - 2
