"""Goofspiel: a tiny simultaneous-bid card game used to test the arena without a big engine.

Each seat holds cards 1..N; each round a prize card (1..N, shuffled) is revealed and every seat
bids one card from its hand simultaneously and hidden; the highest unique bid wins the prize.
It exercises everything the arena must handle: simultaneous seats, hidden hands, chance.
Registered as a plugin through ``TLACHTLI_PLUGINS=examples.games.goofspiel.game``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from random import Random
from typing import Any

from arena.bot import hookimpl
from engine.api import Capabilities, Decision, IllegalAction, Result, competition_ranks, validate_options


class GoofspielState:
    def __init__(self, players: int, seed: int, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.players = players
        self.rng = Random(seed)
        cards = self.options["cards"]
        self.prizes = list(range(1, cards + 1))
        self.rng.shuffle(self.prizes)
        self.hands = [list(range(1, cards + 1)) for _ in range(players)]
        self.bids: list[int | None] = [None] * players
        self.scores = [0] * players
        self.round = 0
        self.events: list[dict] = []

    def to_act(self) -> tuple[int, ...]:
        if self.terminal():
            return ()
        return tuple(seat for seat in range(self.players) if self.bids[seat] is None)

    def decision(self, seat: int) -> Decision:
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} does not act now")
        prize = self.prizes[self.round]
        options = tuple({"label": f"bid {card}", "card": card} for card in self.hands[seat])
        return Decision("bid", f"Bid for prize {prize}", options)

    def apply(self, seat: int, choice: int) -> None:
        options = self.decision(seat).options
        if not isinstance(choice, int) or not 0 <= choice < len(options):
            raise IllegalAction(f"choice {choice!r} out of range 0..{len(options) - 1}")
        card = options[choice]["card"]
        self.hands[seat].remove(card)
        self.bids[seat] = card
        if all(bid is not None for bid in self.bids):
            self._resolve()

    def _resolve(self) -> None:
        prize = self.prizes[self.round]
        top = max(bid for bid in self.bids if bid is not None)  # every seat has bid by now
        winners = [seat for seat, bid in enumerate(self.bids) if bid == top]
        if len(winners) == 1:
            self.scores[winners[0]] += prize
        self.events.append({"round": self.round, "prize": prize, "bids": list(self.bids)})
        self.bids = [None] * self.players
        self.round += 1

    def observation(self, seat: int) -> dict:
        return {
            "game": "goofspiel",
            "seat": seat,
            "round": self.round,
            "prize": None if self.terminal() else self.prizes[self.round],
            "hand": list(self.hands[seat]),
            "scores": list(self.scores),
            "history": copy.deepcopy(self.events),
        }

    def terminal(self) -> bool:
        return self.round >= len(self.prizes)

    def result(self) -> Result:
        return Result(tuple(self.scores), competition_ranks([(s,) for s in self.scores]), {})

    def clone(self) -> GoofspielState:
        return copy.deepcopy(self)

    def determinize(self, seat: int, rng: Random) -> GoofspielState:
        state = self.clone()
        rest = state.prizes[state.round + 1 :]
        rng.shuffle(rest)
        state.prizes[state.round + 1 :] = rest
        return state

    def log(self) -> list[dict]:
        return list(self.events)

    def render(self) -> str:
        return f"round {self.round} scores {self.scores}"


def phase(state: GoofspielState) -> str:
    """The round being bid for: the match viewer's heading over its moves."""
    return f"Round {state.round}"


class Goofspiel:
    id = "goofspiel"
    version = "1"
    min_players = 2
    max_players = 4
    automata: tuple[str, ...] = ()
    # What it offers beyond the contract (engine/api.py): only the move list's headings. No
    # from_observation (search bots), no picture (the web shows render()'s text), no score sheet.
    capabilities = Capabilities(phase=phase)

    def option_schema(self) -> Mapping[str, Any]:
        return {"cards": {"type": "int", "default": 5, "min": 1, "max": 13, "help": "cards per hand"}}

    def setup(self, players: int, seed: int, options: Mapping[str, Any]) -> GoofspielState:
        return GoofspielState(players, seed, validate_options(self.option_schema(), options))

    def from_observation(self, observation: dict, rng: Random) -> GoofspielState:
        raise NotImplementedError("goofspiel is a test game; search bots are not tested on it")


GAME = Goofspiel()


@hookimpl
def tlachtli_games():
    return [GAME]
