"""Play one game with Python agents in this process: no referee, no pipes, no clocks.

For tests and benchmarks of bots: the agents get the same hello and decide fields the referee
sends (``arena.match.referee``), with a nominal clock since nothing is timed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.wire import protocol
from arena.wire.agent import Agent, split_answer
from engine.api import Game, State

# The clock announced to the agents; nothing enforces it in process.
NOMINAL_CLOCK = {"move_ms": 1000, "bank_ms": 60000}


def hello_message(
    game: Game, seat: int, players: int, options: Mapping[str, Any], agent_options: dict
) -> protocol.HelloMessage:
    """The referee's hello for ``seat`` with the nominal clock."""
    return protocol.hello_message(game.id, game.version, seat, players, options, NOMINAL_CLOCK, agent_options)


def decide_message(state: State, seat: int, decision_id: int) -> protocol.DecideMessage:
    """The referee's decide message for ``seat``'s current decision, with the nominal clock."""
    return protocol.decide_message(
        decision_id,
        state.observation(seat),
        state.decision(seat),
        NOMINAL_CLOCK["move_ms"],
        NOMINAL_CLOCK["bank_ms"],
    )


def play_in_process(
    game: Game,
    agents: Sequence[Agent],
    seed: int,
    options: Mapping[str, Any] | None = None,
    agent_options: Sequence[dict] | None = None,
    automaton: str | None = None,
    max_steps: int = 1_000_000,
) -> State:
    """Play a whole game, agent ``i`` in seat ``i`` (``automaton``, if given, after them); returns it.

    Options reach ``Game.setup`` as the referee gives them (``arena.match.lineup.setup_state``). Each
    agent's ``act`` receives ``(decide["obs"], decide)`` as ``arena.wire.host`` passes them, and ``end``
    the final scores and ranks. A choice that is not an int in range raises the same
    ``ProtocolError`` the referee would fault the seat with (bad-frame, illegal-choice).
    """
    given = dict(options or {})
    if automaton is not None:
        given["automaton"] = automaton
    state = game.setup(len(agents), seed, given)
    players = len(agents) + (automaton is not None)
    for seat, agent in enumerate(agents):
        extra = dict(agent_options[seat]) if agent_options else {}
        agent.setup(
            dict(hello_message(game, seat, players, given, extra))
        )  # a plain dict, as arena.wire.host gives
    for step in range(1, max_steps + 1):
        seats = state.to_act()
        if not seats:
            break
        seat = seats[0]  # simultaneous seats one after another, as engine.playout does
        message = decide_message(state, seat, step)
        reply = protocol.act_message(
            step, *split_answer(agents[seat], agents[seat].act(message["obs"], dict(message)))
        )
        state.apply(seat, protocol.check_reply(dict(reply), step, len(message["options"])))
    else:
        raise RuntimeError(f"{game.id}: game did not end within {max_steps} decisions")
    result = state.result()
    for agent in agents:
        agent.end({"scores": list(result.scores), "ranks": list(result.ranks)})
    return state
