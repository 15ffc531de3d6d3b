"""A built package's validation: the conformance check and a game against itself, under the ladder's
clocks and limits, in the bwrap sandbox. Any forfeit of the bot rejects it (Kaggle's validation
episode)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.match.conformance import CheckReport, check_specs
from arena.match.lineup import MatchSetupError
from arena.match.spec import MatchSpec
from arena.registry.plugins import Registry
from arena.tournament.plan.ladder import Ladder


class ValidationFailed(ValueError):
    """The bot forfeited (or could not be seated); the message is its owner's one line."""


def ladder_spec(ladder: Ladder, agents: tuple[str, ...], seed: int) -> MatchSpec:
    """A match of ``ladder``'s game, options, clocks and limits, always sandboxed."""
    return MatchSpec(
        game=ladder.game,
        agents=agents,
        seed=seed,
        options=dict(ladder.options),
        automaton=ladder.automaton,
        move_ms=ladder.move_ms,
        bank_ms=ladder.bank_ms,
        handshake_ms=ladder.handshake_ms,
        memory_mb=ladder.memory_mb,
        cpu_seconds=ladder.cpu_seconds,
        cpus=ladder.cpus,
        ponder=ladder.ponder,
        sandbox="bwrap",
    )


def validation_matches(
    package: Path, ladder: Ladder, registry: Registry
) -> list[tuple[MatchSpec, tuple[int, ...]]]:
    """The matches to play, each with the seats the bot holds: the conformance check's at the ladder's
    seat count (against random, in every seat), then one against itself in every seat."""
    agent = str(package)
    try:
        checks = [
            (spec, seat) for spec, seat in check_specs(agent, registry, ladder.game, move_ms=ladder.move_ms)
            if spec.players == ladder.players
        ]  # fmt: skip
    except MatchSetupError as error:
        raise ValidationFailed(str(error)) from None
    if not checks:
        raise ValidationFailed(f"it does not claim {ladder.players}-player games, which this ladder plays")
    matches: list[tuple[MatchSpec, tuple[int, ...]]] = [
        (ladder_spec(ladder, spec.agents, spec.seed), (seat,)) for spec, seat in checks
    ]
    selfplay = ladder_spec(ladder, (agent,) * ladder.players, 7)
    matches.append((selfplay, tuple(range(ladder.players))))
    return matches


def validate(package: Path, ladder: Ladder, registry: Registry, log: Callable[[str], None]) -> None:
    """Play the validation matches; ValidationFailed with the first forfeit's line."""
    from arena.match.referee import run_match  # trio and the referee: only when a package gets this far

    report = CheckReport(str(package))
    for spec, seats in validation_matches(package, ladder, registry):
        try:
            outcome = run_match(spec, registry)
        except MatchSetupError as error:
            raise ValidationFailed(str(error)) from None
        for seat in seats:
            report.add(outcome, seat)
        faults = [fault for fault in outcome.record["faults"] if fault["seat"] in seats]
        against = "itself" if len(seats) > 1 else "random"
        log(
            f"validation: {spec.game} {spec.players}p against {against}, seats {list(seats)}: "
            + (f"{faults[0]['fault']}: {faults[0]['detail']}" if faults else "clean")
        )
        if faults:
            for line in report.summary_lines():
                log(line)
            fault = faults[0]
            raise ValidationFailed(
                f"validation: it forfeited ({fault['fault']}: {fault['detail']}) in seat {fault['seat']} "
                f"of a {spec.players}-player {spec.game} match against {against}"
            )
