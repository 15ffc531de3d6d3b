"""`arena compare`: NEW against OLD, deal by deal, until the SPRT (arena/tournament/stats/sprt.py) decides.

Two designs; both are stored as a ladder run of format "compare", so that a comparison resumes
like a ladder and its matches show in `arena matches`, `arena leaderboard` and the web view.

- head-to-head (two seats, no automaton, no opponents): a deal is NEW and OLD on one seed in
  both seatings; NEW's two results against OLD make the deal's score (the pentanomial model).
- paired (any other seat count, an automaton, or opponents): a deal is one seed played in every
  seat rotation of (SUBJECT, opponents...), once with NEW as the subject and once with OLD. In
  each rotation NEW's result is set against OLD's in the identical match: the better place
  wins, an equal place goes to the higher score, else it is level.

Matches are played in batches of whole deals (arena/tournament/run/compare.py); the test reads
the stored results in deal order after each batch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena.match.spec import MatchSpec
from arena.tournament.formats import FORMATS
from arena.tournament.plan.ladder import SECRET_SEED, Entrant, Ladder, content_digest
from arena.tournament.plan.schedule import ScheduledMatch, match_seed, rotations
from arena.tournament.stats.ratings import effective_ranks
from arena.tournament.stats.report import seat_lines
from arena.tournament.stats.sprt import SprtError, SprtSettings, SprtState, llr_path, sequential
from arena.tournament.store.api import LadderRun, StoredMatch, StoreError, TournamentStore

FORMAT = FORMATS["compare"].name  # its entry in the formats table (arena/tournament/formats.py)
SUBJECT = "<subject>"  # the seat NEW and OLD take in turn in a paired deal
VERDICTS = {
    "H1": "H1 accepted: NEW is better than OLD (by elo1 rather than elo0)",
    "H0": "H0 accepted: NEW is not better than OLD by elo1 (elo0 is the likelier)",
    None: "undecided",
}


class CompareError(ValueError):
    """A comparison that cannot be set up; the message says what to change."""


@dataclass(frozen=True)
class Comparison:
    """What to compare, on what, and the test's settings."""

    name: str
    game: str
    new: Entrant
    old: Entrant
    players: int  # agent seats per match (the automaton's seat, if any, not counted)
    opponents: tuple[Entrant, ...] = ()  # the other agent seats of a paired deal
    automaton: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0  # with ``secret``: the run's drawn base seed once ``with_run_seed`` set it
    move_ms: int = MatchSpec.move_ms
    settings: SprtSettings = field(default_factory=SprtSettings)
    secret: bool = False  # the base seed is drawn by the store and kept there (no --seed given)

    @property
    def paired(self) -> bool:
        """True for the paired design, False for head-to-head."""
        return bool(self.opponents) or self.automaton is not None

    @property
    def games_per_deal(self) -> int:
        """Results of NEW against OLD per deal: one per seat rotation."""
        return self.players

    @property
    def matches_per_deal(self) -> int:
        return 2 * self.players if self.paired else self.players


def make_comparison(
    name: str,
    game: str,
    new: str,
    old: str,
    players: int,
    opponents: Sequence[str] = (),
    automaton: str | None = None,
    new_options: dict[str, Any] | None = None,
    old_options: dict[str, Any] | None = None,
    **settings: Any,
) -> Comparison:
    """Check the seat arithmetic and name every entrant (and the comparison, if ``name`` is empty);
    agent names are resolved by the caller.

    NEW and OLD may be one agent with different agent options (e.g. two search budgets); each
    is then named with its options, e.g. ``ismcts[iterations=200]``.
    """
    new_options, old_options = dict(new_options or {}), dict(old_options or {})
    if new == old and new_options == old_options:
        raise CompareError(
            f"NEW and OLD are both {new!r}"
            + (" with the same options" if new_options else "")
            + ": compare two different agents, or one agent with different --new-option / --old-option"
        )
    new_name, old_name = (_named(new, new_options), _named(old, old_options)) if new == old else (new, old)
    if players < 1:
        raise CompareError(f"--players must be at least 1, got {players}")
    if players == 1 and automaton is None:
        raise CompareError("one player needs an automaton in the other seat: give --automaton NAME")
    head_to_head = players == 2 and automaton is None and not opponents
    seats_left = 0 if head_to_head else players - 1
    chosen = list(opponents) or (["random"] if seats_left else [])
    if len(chosen) > seats_left:
        raise CompareError(
            f"{len(chosen)} --opponent given but only {seats_left} seat(s) are left beside NEW/OLD"
            f" with --players {players}"
        )
    filled = [chosen[i % len(chosen)] for i in range(seats_left)] if chosen else []
    taken = {new_name, old_name, SUBJECT, automaton}
    entrants = []
    for agent in filled:
        display, number = agent, 1
        while display in taken:
            number += 1
            display = f"{agent}#{number}"
        taken.add(display)
        entrants.append(Entrant(display, agent))
    return Comparison(
        name=name or f"compare {new_name} vs {old_name} ({game})",
        game=game,
        new=Entrant(new_name, new, new_options),
        old=Entrant(old_name, old, old_options),
        players=players,
        opponents=tuple(entrants),
        automaton=automaton,
        **settings,
    )


def _named(agent: str, options: dict[str, Any]) -> str:
    """An entrant's name that tells it from the same agent with other options."""
    return f"{agent}[{','.join(f'{key}={value}' for key, value in sorted(options.items()))}]"


def ladder_record(comparison: Comparison) -> Ladder:
    """The ladder run the comparison's matches are stored under.

    Its digest covers everything that defines the matches and the test, but not --max-deals:
    the same comparison run again with a larger --max-deals goes on where it stopped.
    """
    c = comparison
    content = {
        "compare": {
            "new": c.new.agent,
            "old": c.old.agent,
            "opponents": [[e.name, e.agent] for e in c.opponents],
            "game": c.game,
            "players": c.players,
            "automaton": c.automaton,
            "options": c.options,
            "seed": SECRET_SEED if c.secret else c.seed,  # a drawn seed: the same comparison resumes
            "move_ms": c.move_ms,
            "settings": [c.settings.elo0, c.settings.elo1, c.settings.alpha, c.settings.beta],
        }
    }
    if c.new.options or c.old.options:  # only then, so that comparisons stored before keep their digest
        content["compare"]["agent_options"] = [c.new.options, c.old.options]
    return Ladder(
        name=c.name,
        game=c.game,
        players=c.players,
        format=FORMAT,
        entrants=(c.new, c.old, *c.opponents),
        options=dict(c.options),
        seed=c.seed,
        secret_seed=c.secret,
        challenger=c.new.name,
        automaton=c.automaton,
        move_ms=c.move_ms,
        description=f"arena compare: is {c.new.name} at least {c.settings.elo1:g} Elo better than {c.old.name}?",
        digest=content_digest(content),
        source="arena compare",
        sprt=asdict(c.settings),
    )


def schedule(comparison: Comparison, deals: int) -> list[ScheduledMatch]:
    """The first ``deals`` deals' matches, deal-major (match ``i`` belongs to deal ``i // per deal``)."""
    c = comparison
    matches: list[ScheduledMatch] = []

    def add(key: str, seated: Sequence[Entrant], seed: int) -> None:
        spec = MatchSpec(
            game=c.game,
            agents=tuple(e.agent for e in seated),
            seed=seed,
            options=dict(c.options),
            automaton=c.automaton,
            # none at all when no entrant has any, as comparisons stored before were scheduled
            agent_options=tuple(dict(e.options) for e in seated) if any(e.options for e in seated) else (),
            move_ms=c.move_ms,
        )
        matches.append(ScheduledMatch(len(matches), key, tuple(e.name for e in seated), spec))

    for deal in range(deals):
        seed = match_seed(c.seed, [], deal)
        if not c.paired:
            for shift, seated in enumerate(rotations((c.new, c.old))):
                add(f"{c.new.name}|{c.old.name}#{deal}/r{shift}", seated, seed)
            continue
        subject = Entrant(SUBJECT, SUBJECT)
        for shift, seated in enumerate(rotations((subject, *c.opponents))):
            for player in (c.new, c.old):
                add(f"{player.name}#{deal}/r{shift}", [player if e is subject else e for e in seated], seed)
    return matches


def deal_outcomes(comparison: Comparison, matches: Sequence[StoredMatch]) -> list[int]:
    """NEW's score of each deal, in halves (0 .. 2 * games per deal), up to the first deal not done."""
    c = comparison
    done = {match.idx: match for match in matches if match.status == "done"}
    per_deal = c.matches_per_deal
    outcomes: list[int] = []
    for deal in range(len(matches) // per_deal):
        group = [done[idx] for idx in range(deal * per_deal, (deal + 1) * per_deal) if idx in done]
        if len(group) < per_deal:
            break
        if c.paired:
            pairs = zip(group[::2], group[1::2], strict=True)
            outcomes.append(
                sum(_better(_standing(a, c.new.name), _standing(b, c.old.name)) for a, b in pairs)
            )
        else:
            outcomes.append(sum(_head_to_head(match, c.new.name, c.old.name) for match in group))
    return outcomes


def _head_to_head(match: StoredMatch, new: str, old: str) -> int:
    """NEW's result against OLD in one match, in halves: 2 ahead, 1 level, 0 behind."""
    lines = seat_lines(match)
    ranks = dict(zip((line.agent for line in lines), effective_ranks(lines), strict=True))
    return _better((ranks[new], 0), (ranks[old], 0))


def _standing(match: StoredMatch, agent: str) -> tuple[int, int]:
    """How ``agent`` did, smaller is better: its place (forfeits last), then minus its score."""
    lines = seat_lines(match)
    ranks = effective_ranks(lines)
    for line, rank in zip(lines, ranks, strict=True):
        if line.agent == agent:
            return rank, 0 if line.fault else -line.score
    raise KeyError(agent)


def _better(a: tuple[int, int], b: tuple[int, int]) -> int:
    return 2 if a < b else 1 if a == b else 0


def current_state(
    store: TournamentStore, run: LadderRun, comparison: Comparison, checked: int = 0
) -> SprtState:
    """The test over the stored deals; the first ``checked`` are known to leave it undecided."""
    outcomes = deal_outcomes(comparison, store.matches(run.id))
    return sequential(outcomes, comparison.games_per_deal, comparison.settings, checked)


def stored_comparison(store: TournamentStore, run: LadderRun) -> Comparison | None:
    """The comparison a stored run of format "compare" was made by, read back from the run's
    stored ladder; None where its test settings cannot be known (checked against the run's
    digest). Runs stored before the settings were kept are read with the defaults of `arena
    compare` and the elo1 of their description, when the digest confirms them."""
    try:
        config = store.config(run.id)
        new, old, *opponents = (
            Entrant(e["name"], e["agent"], e.get("options") or {}) for e in config["entrants"]
        )
        described = re.search(r"at least (\S+) Elo better", config.get("description", ""))
        settings = config.get("sprt") or {"elo1": float(described.group(1)) if described else 10.0}
        comparison = Comparison(
            name=run.name,
            game=config["game"],
            new=new,
            old=old,
            players=config["players"],
            opponents=tuple(opponents),
            automaton=config.get("automaton"),
            options=config.get("options") or {},
            seed=config.get("seed", 0),
            move_ms=config["move_ms"],
            settings=SprtSettings(**settings),
            secret=bool(config.get("secret_seed")),
        )
    except (TypeError, ValueError, KeyError, SprtError, StoreError):
        return None
    return with_run_seed(comparison, run) if ladder_record(comparison).digest == run.digest else None


def with_run_seed(comparison: Comparison, run: LadderRun) -> Comparison:
    """``comparison`` dealing from ``run``'s base seed, where the store drew it in secret."""
    if comparison.secret and run.base_seed is not None:
        return replace(comparison, seed=run.base_seed)
    return comparison


def interval_hint(settings: SprtSettings, state: SprtState) -> str | None:
    """What to do when an undecided test's 95% Elo interval lies wholly outside [elo0, elo1]; else None.

    The test weighs only elo0 against elo1: when the data rule both out (NEW far worse, or far
    better, than either), neither is much likelier and the LLR drifts for many deals, though the
    answer to the question asked is plain.
    """
    low, high = state.elo_low, state.elo_high
    if state.verdict is not None or low is None or high is None:
        return None
    if settings.elo0 <= high and low <= settings.elo1:
        return None
    below = high < settings.elo0
    where = f"below elo0 ({settings.elo0:+g})" if below else f"above elo1 ({settings.elo1:+g})"
    plain = (
        "NEW is clearly worse than OLD"
        if below
        else f"NEW is better than OLD by more than {settings.elo1:g} Elo"
    )
    text = (
        f"the 95% interval [{low:+.0f}, {high:+.0f}] lies wholly {where}: {plain}, and the test, which "
        "weighs elo0 against elo1 only, may take many deals to say so. Quote the interval"
    )
    near = high if below else low
    if not math.isfinite(near):  # every deal so far lost (or won): no scale to suggest bounds on
        return text
    # the other end may be infinite (no deal won, or none lost): suggest bounds within 400 Elo
    far = max(low, high - 400) if below else min(high, low + 400)
    a, b = sorted(round(far + (near - far) * share, -1) for share in (1 / 3, 2 / 3))
    b = max(b, a + 10)  # elo1 must lie above elo0
    return f"{text}, or run again with --new and bounds inside it (say --elo0 {a:+g} --elo1 {b:+g}) for the test to say by how much"


def result(comparison: Comparison, state: SprtState) -> dict[str, Any]:
    """The comparison and where its test stands: the document of `arena compare --json`."""
    c = comparison
    return {
        "name": c.name,
        "game": c.game,
        "new": c.new.name,
        "old": c.old.name,
        "design": "paired" if c.paired else "head-to-head",
        "players": c.players,
        "opponents": [e.name for e in c.opponents],
        "automaton": c.automaton,
        **asdict(c.settings),
        **state.as_dict(),
        "hint": interval_hint(c.settings, state),
    }


def summary(store: TournamentStore, run: LadderRun) -> dict[str, Any] | None:
    """Where a stored comparison stands (``result``), plus the LLR path (``sprt.llr_path``), the
    verdict in words and the games counted; None as for ``stored_comparison``."""
    c = stored_comparison(store, run)
    if c is None:
        return None
    matches = store.matches(run.id)
    outcomes = deal_outcomes(c, matches)
    path = llr_path(outcomes, c.games_per_deal, c.settings)
    state = sequential(outcomes, c.games_per_deal, c.settings)
    return {
        **result(c, state),
        "verdict_text": VERDICTS[state.verdict],
        "games": state.deals * c.games_per_deal,
        "games_per_deal": c.games_per_deal,
        "deals_played": len(outcomes),
        "matches_done": sum(match.status == "done" for match in matches),
        "path": [[deal, round(llr, 4)] for deal, llr in path],
    }
