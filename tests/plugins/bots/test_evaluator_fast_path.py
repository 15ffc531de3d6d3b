"""The bundled evaluators read a state in place (no observation built): they must give exactly
what they give from an observation, for every viewer, and nothing hidden may move them."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots import teotihuacan_eval, zapotec_eval

FROM_OBSERVATION = {
    "teotihuacan": teotihuacan_eval.evaluate_observation,
    "zapotec": zapotec_eval.evaluate_observation,
}
EVALUATE = {"teotihuacan": teotihuacan_eval.evaluate, "zapotec": zapotec_eval.evaluate}
SETUPS = [(2, {}), (3, {}), (1, "solo")]
SOLO = {"teotihuacan": {"automaton": "teotibot"}, "zapotec": {}}


@pytest.mark.parametrize("game", [TEOTIHUACAN, ZAPOTEC], ids=lambda g: g.id)
@pytest.mark.parametrize(("players", "options"), SETUPS)
def test_evaluating_a_state_is_evaluating_any_seats_observation(game, players, options):
    options = SOLO[game.id] if options == "solo" else options
    evaluate, from_observation = EVALUATE[game.id], FROM_OBSERVATION[game.id]
    for seed in range(3):
        state = game.setup(players, seed, options)
        rng = Random(seed)
        steps = 0
        while True:
            seats = state.to_act()
            if steps % 9 == 0 or not seats:
                values = evaluate(state)
                for viewer in seats or (0,):
                    assert from_observation(state.observation(viewer)) == values
                    # what the viewer cannot see, resampled: the value must not move
                    assert evaluate(state.determinize(viewer, Random(steps))) == values
            if not seats:
                break
            state.apply(seats[0], rng.randrange(len(state.decision(seats[0]).options)))
            steps += 1
        assert evaluate(state) == [float(s) for s in state.result().scores]
