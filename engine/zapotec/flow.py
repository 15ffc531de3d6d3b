"""Round structure: reveal and turn order, the start and end of each turn, end-of-round clean-up
and the end of the game. Cocijobot's turns are played here, when its place in the order comes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import cocijobot, scoring
from .rules import refill_display

if TYPE_CHECKING:
    from .core import ZapotecCore


def all_picked(state: ZapotecCore) -> None:
    """Phase 1 is over: reveal the cards, set the turn order and start the first turn."""
    d = state.data
    agents = sorted(range(state.players), key=lambda s: state.picks[s])
    for seat in range(state.players):  # revealed now, so no longer a known card in that hand
        if state.picks[seat] in state.known_hand[seat]:
            state.known_hand[seat].remove(state.picks[seat])
    if state.solo:
        card = cocijobot.flip(state)
        first = d.cocijobot_deck[card].number <= state.picks[0]
        state.order = [1, 0] if first else [0, 1]
        state.event(
            f"Cards revealed: you played {state.picks[0]}, Cocijobot flipped number "
            f"{d.cocijobot_deck[card].number}; {'Cocijobot goes' if first else 'you go'} first",
            kind="reveal",
            cards=[state.picks[0]],
            cocijobot_number=d.cocijobot_deck[card].number,
        )
    else:
        state.order = agents
        state.event(
            "Cards revealed: " + ", ".join(f"seat {s} played {state.picks[s]}" for s in range(state.players)),
            kind="reveal",
            cards=list(state.picks),
        )
    state.turn_pos = 0
    start_turn(state)


def start_turn(state: ZapotecCore) -> None:
    """Begin the turn of the seat at ``turn_pos``; Cocijobot plays its turn at once."""
    while True:
        seat = state.order[state.turn_pos]
        state.current = seat
        if state.solo and seat == 1:
            cocijobot.play_turn(state)
            if not _next_seat(state):
                return
            continue
        state.step = "income"
        return


def end_turn(state: ZapotecCore) -> None:
    """After the draw step: per-round tiles flip face up, the display refills, the next seat plays."""
    seat = state.current
    tiles = state.data.trade_tiles
    state.tiles_down[seat] = [t for t in state.tiles_down[seat] if tiles[t].usage != "per_round"]
    refill_display(state)
    if _next_seat(state):
        start_turn(state)


def _next_seat(state: ZapotecCore) -> bool:
    """Advance to the next seat in turn order; False when the round (or the game) ended."""
    state.turn_pos += 1
    if state.turn_pos < len(state.order):
        return True
    end_round(state)
    return False


def end_round(state: ZapotecCore) -> None:
    """End-of-round clean-up (skipped after the last round, which ends the game instead)."""
    d = state.data
    if state.round >= d.rounds:
        scoring.end_game(state)
        state.step = "over"
        state.current = -1
        return
    scoring.mark_round(state, f"round {state.round}")
    played = [state.picks[s] for s in range(state.players)]
    state.bonus.extend(state.offer)  # the card left over in the Offer is the next bonus card
    if state.solo:
        # Played cards leave the game face up; the next Offer is drawn from the deck.
        state.discard.extend(played)
        refill = state.round in d.solo_offer_refill_rounds
        state.offer = [state.deck.pop() for _ in range(min(2, len(state.deck)))] if refill else []
    else:
        state.offer = sorted(played + ([state.deck.pop()] if state.deck else []))
    state.round += 1
    state.picks = [-1] * state.seats
    state.bought = [[0, 0, 0] for _ in range(state.seats)]
    state.pyr_this_round = [[] for _ in range(state.seats)]
    state.cj_card = -1
    state.order = []
    state.current = -1
    state.step = "pick"
    state.event(f"Round {state.round} begins; bonus card {state.bonus[-1]}", kind="round")
