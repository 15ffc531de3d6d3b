"""The engines' board drawings (engine/*/svg.py): well-formed, pure, CSP-clean, showing the play."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from arena.web.replay import draw as draw_board
from engine.teotihuacan.game import GAME as TEOTIHUACAN
from engine.teotihuacan.icons import icons_text
from engine.teotihuacan.svg import svg as teotihuacan_svg
from engine.zapotec.game import GAME as ZAPOTEC
from engine.zapotec.svg import _card
from engine.zapotec.svg import svg as zapotec_svg
from tests.support.board_positions import SETUPS
from tests.support.board_positions import positions as seeded_positions
from tests.support.svg_checks import problems, raw_in_text, shown_text

CASES = [
    (ZAPOTEC, 2, {}, zapotec_svg),
    (ZAPOTEC, 4, {}, zapotec_svg),
    (ZAPOTEC, 1, {"automaton": "cocijobot"}, zapotec_svg),
    (TEOTIHUACAN, 3, {}, teotihuacan_svg),
    (TEOTIHUACAN, 1, {"automaton": "teotibot"}, teotihuacan_svg),
]


def positions(game, players, options, seed=5):
    """Every position of one random game, the first and last included."""
    state = game.setup(players, seed, options)
    rng = random.Random(seed)
    yield state
    while not state.terminal():
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
        yield state


def test_zapotec_viewer_sees_own_hand_not_the_others():
    state = ZAPOTEC.setup(2, 3, {})
    hand0 = ", ".join(_card(state, card) for card in state.hands[0])
    hand1 = ", ".join(_card(state, card) for card in state.hands[1])
    referee, seat0 = shown_text(zapotec_svg(state)), shown_text(zapotec_svg(state, viewer=0))
    assert f"hand: {hand0}" in referee and f"hand: {hand1}" in referee
    assert f"hand: {hand0}" in seat0 and f"hand: {hand1}" not in seat0
    assert f"hand: {len(state.hands[1])} cards face down" in seat0


def test_zapotec_draws_houses_in_their_owners_colour():
    for state in positions(ZAPOTEC, 2, {}):
        if any(owner >= 0 for owner in state.space_owner):
            break
    picture = zapotec_svg(state)
    owner = next(owner for owner in state.space_owner if owner >= 0)
    from engine.svg import seat_colour

    assert f'fill="{seat_colour(owner)}"' in picture and "house" in picture


def test_teotihuacan_draws_each_worker_with_its_power():
    state = TEOTIHUACAN.setup(2, 1, {})
    picture = teotihuacan_svg(state)
    workers = sum(1 for board in state.wb if board)
    assert picture.count("worker, power") == workers


NUMBERED = re.compile(r"\b(?:[Ss]eat ?|P|[Pp]layer )(\d)\b")


@pytest.mark.parametrize(("game", "players", "options", "draw"), CASES)
def test_every_position_draws_csp_clean_svg_and_numbers_the_seats_from_0(game, players, options, draw):
    """Every position of a whole game (one walk: drawing is what costs): the drawing is
    well-formed, pure (same answer, state untouched), CSP-clean and follows the play; and one
    numbering everywhere, seat 0..n-1, in the log, render, prompts and board (Teotihuacan once
    said P1..Pn in its texts)."""
    pictures = []
    seen: set[int] = set()
    for state in positions(game, players, options):
        text_before = state.render()
        picture = draw(state)
        assert draw(state) == picture and state.render() == text_before  # pure: same answer, state untouched
        root = ET.fromstring(picture)
        assert root.tag.endswith("svg")
        assert "style=" not in picture and "<script" not in picture  # a strict CSP allows no inline styles
        pictures.append(picture)
        texts = [text_before, picture, *(entry["text"] for entry in state.log())]
        for seat in state.to_act():
            decision = state.decision(seat)
            texts += [decision.prompt, *(str(option.get("label", "")) for option in decision.options)]
        for found in texts:
            seen.update(int(number) for number in NUMBERED.findall(found))
            assert not re.search(r"\bP[1-9]\b", found), found
    assert len(set(pictures)) > len(pictures) // 2  # the drawing follows the play
    seats = players + bool(options.get("automaton"))
    assert seen == set(range(seats)), seen


@pytest.mark.parametrize(("game", "players", "options", "draw"), CASES)
def test_the_board_shows_the_names_of_the_seats_escaped(game, players, options, draw):
    state = game.setup(players, 1, options)
    seats = players + bool(options.get("automaton"))
    names = ("<b>alice</b>", "bob", "carol", "dave")[:seats]
    picture = draw(state, names=names)
    ET.fromstring(picture)
    assert "seat 0 &lt;b&gt;alice&lt;/b&gt;" in picture and "<b>" not in picture
    assert all(f"seat {seat} {name}" in picture for seat, name in enumerate(names[1:], 1))
    assert draw(state) != picture and "seat 0" in draw(state)  # without names: the numbers alone


def test_the_replay_viewer_draws_with_the_games_declared_picture():
    from arena.web.replay import draw
    from examples.games.goofspiel.game import GAME as GOOFSPIEL

    state = TEOTIHUACAN.setup(2, 1, {})
    assert "seat 1 flatmc" in draw(TEOTIHUACAN, state, None, ["random", "flatmc"])
    # A game that declares no picture is not drawn (the viewer shows its text), whatever
    # modules sit beside its state's.
    assert draw(GOOFSPIEL, GOOFSPIEL.setup(2, 1, {}), None, ["a", "b"]) is None


@pytest.mark.parametrize("setup", SETUPS, ids=lambda setup: setup.name)
def test_no_text_overflows_its_box_and_no_raw_value_is_shown(setup):
    """Mid-game and final boards of every game set-up (base, expansion modules, solo, 2-4
    players), as every seat and the referee see them: each text fits its box (its width estimated
    per character, engine/svg.py) and the picture, and no Python dict or list is shown."""
    for when, state in seeded_positions(setup):
        for viewer in (None, *range(setup.players)):
            found = problems(draw_board(setup.game, state, viewer, setup.names))
            assert found == [], f"{setup.name} {when} viewer {viewer}: {found[:5]}"


@pytest.mark.parametrize("setup", SETUPS, ids=lambda setup: setup.name)
def test_no_label_log_line_or_text_board_shows_a_raw_value(setup):
    """Every prompt and option label offered, every log line and the text board (`arena replay`)
    of seeded random games read as words: no Python list or dict (``offer []``, ``{'vp': 2}``), no
    tile pattern code (``rotation 2 (r.gB over rr.b)``)."""
    found: dict[str, str] = {}
    for seed in range(3):
        state = setup.game.setup(setup.players, seed, setup.options)
        rng = random.Random(seed)
        while state.to_act():
            seat = state.to_act()[0]
            decision = state.decision(seat)
            for text in (decision.prompt, *(option["label"] for option in decision.options)):
                for raw in raw_in_text(text):
                    found.setdefault(raw, text)
            if rng.random() < 0.05:
                for line in state.render().splitlines():
                    for raw in raw_in_text(line):
                        found.setdefault(raw, line)
            state.apply(seat, rng.randrange(len(decision.options)))
        texts = [str(event.get("text", "")) for event in state.log()] + state.render().splitlines()
        for text in texts:
            for raw in raw_in_text(text):
                found.setdefault(raw, text)
    assert found == {}, list(found.items())[:5]


@pytest.mark.parametrize(
    "text",
    [
        "rotation 2 (r.gB over rr.b): 1 matching VP",
        "decoration .R on left level 2 covering .. (1 matching VP)",
        "Seat 0 scores 0 VP for Temple Bonus tiles []",
        "Bonus card 3 (forest); offer []; deck 4",
        "offer [28, 24, 1]",
        "Orange temple (steps: 4 major {'any_resource': 2})",
    ],
)
def test_the_raw_text_check_finds_what_a_person_could_not_read(text):
    assert raw_in_text(text)


def test_tile_icons_read_as_words():
    assert icons_text("b.Rg") == "blue, blank, coloured red, green"
    assert raw_in_text("place pyramid tile #1 (blue, blank, coloured red, green)") == []


def test_teotihuacan_draws_technologies_the_orange_temple_and_legends():
    setup = next(s for s in SETUPS if s.name == "teotihuacan-expansion")
    _, state = next(iter(seeded_positions(setup)))
    shown = shown_text(teotihuacan_svg(state, names=setup.names))
    assert "Technologies" in shown and all(f"{number:02d} (" in shown for number in state.tech)
    assert "orange temple" in shown and "Orange temple steps:" in shown
    assert "Legend:" in shown and "Royal tiles (Palace):" in shown and "Temple Bonus tiles:" in shown


def test_zapotec_draws_the_trade_tile_market_and_a_legend():
    state = ZAPOTEC.setup(2, 3, {})
    shown = shown_text(zapotec_svg(state))
    tiles = [state.data.trade_tiles[t] for row in state.display for t in row]
    assert all(tile.id in shown and tile.text in shown for tile in tiles)
    assert "* = its Palace" in shown and "C cornfield" in shown


def test_zapotec_labels_the_free_spaces_and_each_seats_building_grid():
    state = ZAPOTEC.setup(2, 3, {})
    shown = shown_text(zapotec_svg(state))
    words = set(shown.split())
    assert not words & {"bri", "woo", "sto", "cor"}  # a free space's resource in full
    assert words & {"wood", "brick", "stone", "corn"}
    assert shown.count("Building tiles (basic+advanced; empty: (printed advanced))") == 2
