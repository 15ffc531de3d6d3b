"""A Teotihuacan position evaluator: each seat's VP plus a fitted estimate of the VP still to come.

Read from the public part of an observation (the documented format of docs/teotihuacan.md):
``evaluate_public`` takes ``observation["public"]``; ``evaluate`` reads the same public fields
from a state in place (engine.teotihuacan.observation.PublicView), without building an
observation, as a search calls it at every playout cut-off.

The estimate is linear: ``VP + sum(weight * feature)`` over the named features of ``features``
(what a seat holds, its standing on the tracks, what the coming Eclipses and the final scoring
pay for it, several of them multiplied by the share of the game left, so that a resource is
worth its use early and its final value at the end). The weights are not guessed: they were
fitted by ``bench/fit_eval.py`` (ridge least squares of final VP - current VP on
positions of seeded games; its docstring says how to run it again), one table for a player's
seat (``PLAYER``) and one for Teotibot's (``TEOTIBOT``, whose final scoring differs). The
first, hand-weighted version is kept as ``evaluate_v1`` for comparison (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import mul

from engine.teotihuacan.core import TeoCore
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import EXP, ORANGE
from engine.teotihuacan.observation import PublicView
from engine.teotihuacan.rules.calendar import bonus_points
from engine.teotihuacan.rules.effects import set_sizes

ECLIPSES = 3
# Avenue VP per step at an Eclipse falls from 5 to 1 as buildings are taken (components.toml).
AVENUE_NUMBERS = DATA.building_numbers
PYRAMID_STEP_VP = DATA.pyramid_step_vp  # per Pyramid-track step at Eclipse 1, 2, 3
PYRAMID_LEADER_VP = DATA.pyramid_leader_vp
MASK_SET_VP = DATA.mask_set_vp
SALARY_LOW, SALARY_HIGH = DATA.salary  # cocoa per worker of power 1-3, 4-5
SALARY_VP = DATA.salary_vp  # VP lost per unpaid cocoa
BONUS_STEP = DATA.bonus_step  # temple step that reaches the Temple Bonus tile
# the same per temple index (M2's orange temple, index ORANGE, has its own), as calendar.py
BONUS_STEPS = tuple(EXP.orange_bonus if t == ORANGE else BONUS_STEP for t in range(ORANGE + 1))
# mask kind (1-7) of each discovery tile id, 0 = not a mask
MASK_KIND = tuple(DATA.discoveries[t].mask if t in DATA.discoveries else 0 for t in range(55))
# Teotibot's final scoring (data/teotibot.toml through teotibot.rules.FINAL), difficulty 0
BOT_VP_PER_RESOURCE, BOT_VP_PER_TECH, BOT_VP_PER_BONUS_TILE = 1, 2, 15

# The features of one seat, in the order ``features`` returns them. "_t" = times the share of
# the game left (1 at the start, 0 at the final Eclipse); "_ecl" = times the Eclipses left.
FEATURES = (
    "time",  # the share of the game left: VP a seat scores per game-share on average
    "cocoa",
    "cocoa_t",
    "salary_short",  # cocoa missing for the next Eclipse's salary (3 VP each if unpaid)
    "salary_short_near",  # the same, times how near that Eclipse is (1 = now)
    "wood",
    "stone",
    "gold",
    "wood_t",
    "stone_t",
    "gold_t",
    "temple",  # temple steps, all temples
    "temple_t",
    "temple_near_bonus",  # steps above 6 on temples not yet at the Bonus tile
    "bonus_now",  # the final Temple Bonus scoring (Teotibot: its own extras) if the game ended now
    "avenue_ecl",  # Avenue VP at the next Eclipse's rate, times the Eclipses left
    "avenue",
    "pyramid_next",  # Pyramid-track VP (steps and leader) at the next Eclipse
    "masks_ecl",  # mask-set VP, times the Eclipses left
    "masks",  # masks held
    "tech",
    "tech_t",
    "power",  # worker power points above 1
    "power_t",
    "strong_workers",  # workers of power 4-5 (salary 2, near Ascension)
    "workers_t",  # workers in play, times the share left
    "locked",  # workers locked in a Worship space
    "tiles",  # unused discovery tiles other than masks
    "const",  # 1: a level (the same for every position of a seat, so it decides nothing)
)

# Weights in VP per unit of each feature, fitted by bench/fit_eval.py (which writes
# this block with --write; its docstring says how the data were played).
# BEGIN FITTED (bench/fit_eval.py --write replaces this block)
# Fitted on 2026-11-27 by bench/fit_eval.py --game teotihuacan: 1024 games
# (r3eps.npz, r4eps.npz), 59506 seat-positions, ridge 0.001.
# fmt: off
PLAYER = {
    "time": 98.453,
    "cocoa": 0.354,
    "cocoa_t": 0.265,
    "salary_short": -0.687,
    "salary_short_near": 0.290,
    "wood": 0.353,
    "stone": 0.171,
    "gold": 0.477,
    "wood_t": 1.879,
    "stone_t": 1.114,
    "gold_t": 1.914,
    "temple": 1.002,
    "temple_t": -2.716,
    "temple_near_bonus": -1.478,
    "bonus_now": 0.450,
    "avenue_ecl": 0.518,
    "avenue": 1.077,
    "pyramid_next": 0.871,
    "masks_ecl": -0.056,
    "masks": 1.239,
    "tech": 0.603,
    "tech_t": 5.377,
    "power": -0.036,
    "power_t": 0.540,
    "strong_workers": 2.007,
    "workers_t": -6.777,
    "locked": -2.195,
    "tiles": 0.641,
    "const": -14.537,
}
TEOTIBOT = {
    "time": 64.461,
    "cocoa": -0.256,
    "cocoa_t": -0.373,
    "salary_short": -0.000,
    "salary_short_near": 0.000,
    "wood": -0.108,
    "stone": 0.356,
    "gold": 1.269,
    "wood_t": 2.931,
    "stone_t": 1.408,
    "gold_t": 1.306,
    "temple": 1.462,
    "temple_t": -2.568,
    "temple_near_bonus": 0.014,
    "bonus_now": 0.536,
    "avenue_ecl": 0.793,
    "avenue": -2.177,
    "pyramid_next": 1.285,
    "masks_ecl": 0.995,
    "masks": -0.060,
    "tech": 0.528,
    "tech_t": 1.109,
    "power": 0.685,
    "power_t": 1.227,
    "strong_workers": -0.104,
    "workers_t": 16.115,
    "locked": -2.055,
    "tiles": 0.000,
    "const": -2.055,
}
# fmt: on
# END FITTED


def evaluate(state: TeoCore) -> list[float]:
    """Estimated final score of every seat (Teotibot's included), from what every seat sees."""
    return evaluate_public(PublicView(state))


def turns_played(state: TeoCore) -> int:
    """Turns ended so far (every seat's; the evaluator spec's ``turn_count``): a turn decision
    asked again within a turn (after a discovery tile or a paid unlock) leaves it unchanged."""
    return state.turns


def evaluate_observation(observation: dict) -> list[float]:
    """``evaluate`` from an observation (any seat's: only what every seat sees is read)."""
    return evaluate_public(observation["public"])


_PLAYER_W = tuple(PLAYER[name] for name in FEATURES)
_BOT_W = tuple(TEOTIBOT[name] for name in FEATURES)


def evaluate_public(public: Mapping) -> list[float]:
    """Estimated final score of every seat, from the public part of an observation."""
    vp = public["vp"]
    if public["over"]:
        return [float(v) for v in vp]
    bot = public["bot"]
    values = []
    for seat, row in enumerate(features(public)):
        weights = _BOT_W if seat == bot else _PLAYER_W
        values.append(vp[seat] + sum(map(mul, weights, row)))  # (rows have len(FEATURES) items)
    return values


def features(public: Mapping) -> list[list[float]]:
    """One row of ``FEATURES`` per seat, from the public part of an observation."""
    n = public["n"]
    nt = public["nt"]
    bot = public["bot"]
    eclipses_left = max(1, ECLIPSES - public["eclipses"])
    dark = public["dark"]
    era_left = 0.0 if public["pending"] >= 0 else max(0.0, 1.0 - public["light"] / dark) if dark else 0.0
    time = (eclipses_left - 1 + era_left) / ECLIPSES
    near = 1.0 - era_left
    e = min(public["eclipses"], 2)
    avenue_pay = AVENUE_NUMBERS[min(public["buildings_taken"], len(AVENUE_NUMBERS) - 1)]
    ptrack = public["ptrack"]
    lead = max(ptrack)
    cocoa, res, temple, avenue = public["cocoa"], public["res"], public["temple"], public["avenue"]
    wb, wp, ws = public["wb"], public["wp"], public["ws"]
    tech_marks = public["tech_marks"]
    bonus_tiles = public["bonus"]
    # discovery tiles by owner: mask kinds held, tiles other than masks (all, unused)
    masks = [[0] * 8 for _ in range(n)]
    plain = [0] * n
    unused = [0] * n
    owners = public["d_owner"]
    used = public["d_used"]
    for tid in range(1, 55):
        owner = owners[tid]
        if owner >= 0:
            kind = MASK_KIND[tid]
            if kind:
                masks[owner][kind] += 1
            else:
                plain[owner] += 1
                if not used[tid]:
                    unused[owner] += 1
    rows = []
    for seat in range(n):
        counts = masks[seat]
        sets = set_sizes(counts)
        mask_vp = sum(MASK_SET_VP[size] for size in sets)
        wood, stone, gold = res[3 * seat : 3 * seat + 3]
        steps = temple[nt * seat : nt * seat + nt]
        tech = sum(1 for m in tech_marks if m >> seat & 1)
        power = strong = workers = locked = salary = 0
        for w in range(4 * seat, 4 * seat + 4):
            if wb[w]:
                p = wp[w]
                workers += 1
                power += p - 1
                if p >= 4:
                    strong += 1
                    salary += SALARY_HIGH
                else:
                    salary += SALARY_LOW
                if ws[w] >= 0:
                    locked += 1
        reached = [bonus_tiles[t] for t in range(min(nt, len(bonus_tiles))) if steps[t] >= BONUS_STEPS[t]]
        if seat == bot:
            bonus_now = (
                BOT_VP_PER_RESOURCE * (wood + stone + gold + cocoa[seat])
                + BOT_VP_PER_TECH * tech
                + BOT_VP_PER_BONUS_TILE * len(reached)
            )
            short = 0
        else:
            powers = [wp[w] for w in range(4 * seat, 4 * seat + 4) if wb[w]]
            bonus_now = bonus_points(reached, sets, tech, avenue[seat], plain[seat], powers)
            short = max(0, salary - cocoa[seat])
        pyramid = ptrack[seat] * PYRAMID_STEP_VP[e] + (
            PYRAMID_LEADER_VP if lead and ptrack[seat] == lead else 0
        )
        rows.append(
            [
                time,
                cocoa[seat],
                cocoa[seat] * time,
                short,
                short * near,
                wood,
                stone,
                gold,
                wood * time,
                stone * time,
                gold * time,
                sum(steps),
                sum(steps) * time,
                sum(s - 6 for s in steps if 6 < s < BONUS_STEP),
                bonus_now,
                avenue[seat] * avenue_pay * eclipses_left,
                avenue[seat],
                pyramid,
                mask_vp * eclipses_left,
                sum(counts),
                tech,
                tech * time,
                power,
                power * time,
                strong,
                workers * time,
                locked,
                unused[seat],
                1.0,
            ]
        )
    return rows


# ---- the first, hand-weighted version (kept to compare with) ---------------------------------
V1_COCOA = 0.5
V1_RESOURCES = (1.0, 1.2, 1.6)  # wood, stone, gold
V1_TEMPLE_STEP = 1.5
V1_PYRAMID_STEP = 3.0
V1_POWER = 1.2  # per power point above 1, over a whole game


def evaluate_v1(state: TeoCore) -> list[float]:
    """The first evaluator: VP plus hand-weighted holdings (not used by the bots)."""
    public = PublicView(state)
    if public["over"]:
        return [float(v) for v in public["vp"]]
    eclipses_left = max(1, ECLIPSES - public["eclipses"])
    time_left = eclipses_left / ECLIPSES
    avenue_pay = AVENUE_NUMBERS[min(public["buildings_taken"], len(AVENUE_NUMBERS) - 1)]
    values = []
    for seat in range(public["n"]):
        res = public["res"][3 * seat : 3 * seat + 3]
        temples = public["temple"][3 * seat : 3 * seat + 3]
        powers = public["wp"][4 * seat : 4 * seat + 4]
        values.append(
            public["vp"][seat]
            + V1_COCOA * public["cocoa"][seat]
            + sum(w * r for w, r in zip(V1_RESOURCES, res, strict=True))
            + V1_TEMPLE_STEP * sum(temples)
            + avenue_pay * public["avenue"][seat] * eclipses_left
            + V1_PYRAMID_STEP * public["ptrack"][seat]
            + V1_POWER * time_left * sum(p - 1 for p in powers)
        )
    return values
