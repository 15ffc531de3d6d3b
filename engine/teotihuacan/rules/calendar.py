"""End of turn, the Calendar, the eight Eclipse steps, final bonus tiles and neutral workers."""

from __future__ import annotations

from random import Random

from .. import modules, teotibot
from ..core import CATEGORIES, TeoCore
from ..data import DATA
from ..expansion_data import EXP, ORANGE, TEMPLE_NAMES
from ..flow import Frame, Payload, push
from ..hooks import Auto, Choice, Part
from .effects import mask_score, mask_sets

NCAT = len(CATEGORIES)


def _score(st: TeoCore, seat: int, category: str, vp: int) -> None:
    """Add Eclipse VP to a seat, booking it under a category and the current Eclipse."""
    if st.mods and vp > 0:
        vp = modules.adjust(st, "score_vp", seat, vp)  # a priest's extra VP per gain
    st.vp[seat] += vp
    st.cat_vp[seat * NCAT + CATEGORIES.index(category)] += vp
    st.ecl_vp[seat * 3 + min(st.eclipses, 2)] += vp


def _end_turn(st: TeoCore, frame: Frame) -> None:
    seat = frame[1]
    n = st.n
    st.turns += 1
    if seat == st.last_seat() and st.light < st.dark:
        st.light += 1  # the Last Player moves the light disc after every turn
    if st.pending < 0 and st.light >= st.dark:
        # Reached on this turn: finish the round, then one more full round (Dark Eclipse: now).
        st.pending = 0 if st.dark_variant else (n - 1 - st.order(seat)) + n
        st.note(seat, "the light disc reaches the dark disc: an Eclipse is coming")
    elif st.pending > 0:
        st.pending -= 1
    nxt = (seat + 1) % n
    if nxt == st.first:
        st.mark_vp("round")
    if st.pending == 0:
        st.pending = -1
        push(st, ("eclipse", nxt))
    else:
        push(st, st.turn_frame(nxt))


def is_final(st: TeoCore) -> bool:
    """Whether the Eclipse being scored ends the game (third, or Pyramid finished)."""
    return st.eclipses >= 2 or st.pyramid_done


def _eclipse(st: TeoCore, frame: Frame) -> None:
    nxt = frame[1]
    if st.mods:
        modules.run_all(st, "eclipse_start")
    e = min(st.eclipses, 2)
    number = DATA.building_numbers[st.buildings_taken]
    lead = max(st.ptrack)
    st.note(-1, f"Eclipse {st.eclipses + 1}: Avenue pays {number} VP per step")
    for s in range(st.n):
        avenue = st.avenue[s] * number
        if st.mods:  # e.g. an ability counting the Avenue position 2 higher
            avenue = modules.adjust(st, "eclipse_avenue", s, st.avenue[s]) * number
        leader = DATA.pyramid_leader_vp if lead and st.ptrack[s] == lead else 0
        step_vp = DATA.pyramid_step_vp[e]
        if st.mods:
            step_vp = modules.adjust(st, "pyramid_step_vp", s, step_vp)
        steps = st.ptrack[s] * step_vp
        masks = mask_score(st, s)
        if st.mods:
            masks = modules.adjust(st, "eclipse_masks", s, masks)
        _score(st, s, "avenue", avenue)
        _score(st, s, "pyramid", leader + steps)
        st.ptrack[s] = 0
        _score(st, s, "masks", masks)
        st.note(
            s,
            f"Seat {s} scores Avenue {avenue}, Pyramid leader {leader}, Pyramid steps {steps}, masks {masks}",
        )
    push(st, *[("salary", s) for s in st.agent_seats()], ("eclipse-end", nxt))  # Teotibot pays none


def salary_due(st: TeoCore, seat: int) -> int:
    """1 cocoa per worker in play, 2 for a worker of power 4-5."""
    low, high = DATA.salary
    due = sum(high if st.wp[w] >= 4 else low for w in range(seat * 4, seat * 4 + 4) if st.wb[w])
    return modules.adjust(st, "salary", seat, due) if st.mods else due


def _salary_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    due = salary_due(st, seat)
    opts: list[Payload] = [("pay", k) for k in range(min(due, st.cocoa[seat]), -1, -1)]
    if st.holds(seat, "free_payment"):
        opts.insert(0, ("tile",))
    return opts


def _salary_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    seat = frame[1]
    due = salary_due(st, seat)
    labels = []
    for p in opts:
        if p[0] == "tile":
            labels.append("use the free-payment tile (pay nothing, lose nothing)")
        else:
            lose = DATA.salary_vp * (due - p[1])
            labels.append(f"pay {p[1]} cocoa" + (f" and lose up to {lose} VP" if lose else ""))
    return f"Eclipse salary: {due} cocoa due", labels


def _salary(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat = frame[1]
    if p[0] == "tile":
        st.d_used[st.holds(seat, "free_payment")] = 1
        return
    due = salary_due(st, seat)
    st.cocoa[seat] -= p[1]
    loss = min(st.vp[seat], DATA.salary_vp * (due - p[1]))  # never below 0 VP
    _score(st, seat, "salary", -loss)


def _eclipse_end(st: TeoCore, frame: Frame) -> None:
    nxt = frame[1]
    final = is_final(st)
    if final:
        for s in range(st.n):
            if s == st.bot:
                bonus = teotibot.final_score(st, s, len(bonus_tiles_reached(st, s)))
                st.note(s, f"Teotibot scores {bonus} VP: leftovers, Technologies, flat Bonus tiles")
            else:
                bonus = bonus_score(st, s)
                st.note(s, f"Seat {s} scores {bonus} VP for Temple Bonus tiles: {_reached_text(st, s)}")
            _score(st, s, "bonus", bonus)
    st.mark_vp(f"Eclipse {st.eclipses + 1}")
    if final:
        st.eclipses += 1
        st.over = True
        st.note(-1, "the final Eclipse is scored: the game is over")
        return
    st.eclipses += 1
    st.light = 0
    st.dark = DATA.dark_disc[st.n][st.eclipses]
    place_neutrals(st, list(range(1, 19)), st.chance_rng())
    push(st, st.turn_frame(nxt))
    if st.mods:  # e.g. the next Season tile (frames a hook pushes run before the turn)
        modules.run_all(st, "eclipse_end")


def _reached_text(st: TeoCore, seat: int) -> str:
    """The Temple Bonus tiles ``seat`` reached, in words (``blue tile 4, red tile 5`` or ``none reached``)."""
    reached = set(bonus_tiles_reached(st, seat))
    return (
        ", ".join(
            f"{TEMPLE_NAMES[t]} tile {number}" for t, number in enumerate(st.bonus) if number in reached
        )
        or "none reached"
    )


def bonus_tiles_reached(st: TeoCore, seat: int) -> list[int]:
    """Temple Bonus tiles ``seat`` qualifies for (on step 10 or 11 of their temple)."""
    return [
        st.bonus[t]
        for t in range(len(st.bonus))
        if st.temple[seat * st.nt + t] >= (DATA.bonus_step if t != ORANGE else EXP.orange_bonus)
    ]


def bonus_score(st: TeoCore, seat: int) -> int:
    """VP from every Temple Bonus tile ``seat`` reached."""
    plain = sum(1 for tid in range(1, 55) if st.d_owner[tid] == seat and not DATA.discoveries[tid].mask)
    powers = [st.wp[w] for w in range(seat * 4, seat * 4 + 4) if st.wb[w]]
    return bonus_points(
        bonus_tiles_reached(st, seat),
        mask_sets(st, seat),
        st.tech_count(seat),
        st.avenue[seat],
        plain,
        powers,
    )


def bonus_points(
    reached: list[int], sets: list[int], techs: int, avenue: int, plain: int, powers: list[int]
) -> int:
    """The Temple Bonus tiles' VP from plain counts (pure, so the bot evaluator scores them the
    same way on public values): tiles ``reached``, mask set sizes, technologies, Avenue steps,
    discovery tiles other than masks, and the power of each worker in play."""
    total = 0
    for number in reached:
        if number == 1:
            total += DATA.mask_set_vp[sets[0]] if sets else 0
        elif number == 2:
            total += 5 * techs
        elif number == 3:
            total += 15
        elif number == 4:
            total += 3 * avenue
        elif number == 5:
            total += 9 * len(reached)
        elif number == 6:
            total += 2 * plain
        elif number == 7:
            total += sum(9 if power >= 4 else 4 for power in powers)
    return total


def place_neutrals(st: TeoCore, pool: list[int], rng: Random) -> None:
    """Each unused colour: draw 2 Starting tiles from ``pool``, put its 3 workers on the first 3
    different boards shown."""
    colours = range(st.n, st.n + DATA.neutral_colours[st.n])
    for c in colours:
        drawn = rng.sample(pool, 2)
        for tid in drawn:
            pool.remove(tid)
        boards = []
        for tid in drawn:
            for b in DATA.starting_tiles[tid][0]:
                if b not in boards:
                    boards.append(b)
        for k in range(3):
            w = c * 4 + k
            st.wb[w] = boards[k]
            st.wp[w] = 1
            st.ws[w] = -1
        st.neutral_draws.extend(drawn)


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Auto("end-turn", _end_turn),
    Auto("eclipse", _eclipse),
    Choice("salary", _salary_options, _salary_describe, _salary),
    Auto("eclipse-end", _eclipse_end),
)
