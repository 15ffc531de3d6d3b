"""The ``arena`` command line (tournament commands: arena/cli/tournament.py)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.cluster import cluster_app
from arena.cli.common import (
    MATCH_SANDBOX_HELP,
    check_output_path,
    fail,
    load_registry,
    parse_agent_options,
    parse_options,
    save_or_rescue,
    say,
    shortened,
    stderr_console,
    table,
    use_sandbox,
)
from arena.cli.compare import compare
from arena.cli.db import db_app
from arena.cli.help_text import reflow_commands
from arena.cli.newbot import NewBotError, check_name, render, write_package
from arena.cli.season import season_app
from arena.cli.serve import serve
from arena.cli.submissions import check_package
from arena.cli.submissions import register as register_submission_commands
from arena.cli.tournament import register as register_tournament_commands
from arena.cli.users import register as register_user_commands
from arena.match.record import ReplayError, ReplayStep, load_record
from arena.match.record import replay as replay_record
from arena.match.spec import DEFAULT_HUMAN_CLOCK_S, HUMAN, MatchSpec, SeatResult
from arena.process.cgroups import DEFAULT_CPUS
from arena.registry.plugins import PluginError, Registry
from engine.api import State, capabilities
from engine.options import OPTION_HEADERS, option_rows

if TYPE_CHECKING:
    from arena.match.spec import MatchOutcome
    from arena.web.watch import Watch

# What plays matches (trio, the referee, the agents' start-up) is imported by the commands that
# play: every `arena` process imports this module, and many only read or refuse their input.

app = typer.Typer(
    help="Tlachtli arena: run bots against each other on board-game rules engines.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def agents(
    name: Annotated[
        str | None,
        typer.Argument(
            help="An agent's name: list its options (name, type, default, allowed values, meaning)."
        ),
    ] = None,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide", help="Whole descriptions and the plugin column (the table fits 100 columns without)."
        ),
    ] = False,
) -> None:
    """List the agents the installed plugins offer (name, games, description, source), or one agent's options."""
    registry = load_registry()
    if name is not None:
        try:
            spec = registry.agent(name)
        except PluginError as error:
            raise fail(str(error)) from None
        if spec.options is None:
            typer.echo(f"agent {name!r} declares no options: any it is given are passed on unchecked")
        elif not spec.options:
            typer.echo(f"agent {name!r} takes no options")
        else:
            typer.echo(table(option_rows(spec.options), headers=list(OPTION_HEADERS)))
        return
    rows = [
        [
            spec.name,
            ", ".join(spec.games) or "any",
            "python" if spec.factory else "external",
            spec.description,
            spec.source,
        ]
        for spec in sorted(registry.agents.values(), key=lambda s: s.name)
    ]
    headers = ["agent", "games", "kind", "description", "plugin"]
    if not wide:  # the plugin column left out, descriptions cut to fit
        headers, rows = headers[:4], shortened([row[:4] for row in rows], headers[:4], 3)
    typer.echo(table(rows, headers=headers))


@app.command()
def games(
    game: Annotated[
        str | None,
        typer.Argument(
            help="A game id: list its options (name, type, default, allowed values, meaning) instead."
        ),
    ] = None,
) -> None:
    """List the games (rules engines) the installed plugins offer, or one game's options and capabilities."""
    registry = load_registry()
    if game is not None:
        if game not in registry.games:
            raise fail(f"unknown game {game!r}; installed: {', '.join(sorted(registry.games))}")
        schema = registry.games[game].option_schema()
        typer.echo(table(option_rows(schema), headers=list(OPTION_HEADERS)))
        offered = capabilities(registry.games[game]).offered()
        typer.echo(f"capabilities: {', '.join(offered) or 'none'} (docs/games.md)")
        return
    rows = []
    for game_id, found in sorted(registry.games.items()):
        players = f"{found.min_players}-{found.max_players}"
        rows.append(
            [
                game_id,
                found.version,
                players,
                ", ".join(found.automata) or "-",
                registry.game_sources[game_id],
            ]
        )
    typer.echo(table(rows, headers=["game", "version", "players", "automata", "plugin"]))


def seat_table(seats: Sequence[SeatResult]) -> str:
    """The seat / agent / score / rank / fault table of a finished match."""
    rows = [[s.seat, s.agent, s.score, s.rank, s.fault or ""] for s in seats]
    return table(rows, headers=["seat", "agent", "score", "rank", "fault"])


@app.command()
def play(
    game: Annotated[str, typer.Option("--game", "-g", help="Game id (see `arena games`).")],
    agent: Annotated[
        list[str],
        typer.Option(
            "--agent",
            "-a",
            help="A plugin agent's name, a path to an executable or a bot package folder (tlachtli.toml; "
            "sandboxed); once per seat, in order; `human`: you, in the browser.",
        ),
    ],
    automaton: Annotated[
        str | None,
        typer.Option(
            help="Let the game's automaton (e.g. cocijobot) take the seat after the agents; needed for 1 agent."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Game seed (random when omitted; printed either way).")
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(
            min=1, help="Agent seats; when more than the --agent given, the last --agent fills the rest."
        ),
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Game option key=value (repeatable).")
    ] = None,
    agent_option: Annotated[
        list[str] | None,
        typer.Option(
            "--agent-option",
            "-O",
            metavar="SEAT:KEY=VALUE",
            help="Option for the agent in SEAT (0 = the first --agent), e.g. 0:time_ms=500 (repeatable; "
            "`arena agents NAME` lists an agent's options).",
        ),
    ] = None,
    move_ms: Annotated[int, typer.Option(min=1, help="Clock per decision, in milliseconds.")] = 1000,
    bank_ms: Annotated[
        int, typer.Option(min=0, help="Time bank per game, drawn on when a move overruns its clock.")
    ] = 60_000,
    memory_mb: Annotated[
        int | None,
        typer.Option(
            min=16,
            help="Memory per agent, all its processes together (where cgroups work; default 2048), and "
            "address space per agent process (default: none), in MiB.",
        ),
    ] = None,
    cpu_seconds: Annotated[
        int | None, typer.Option(min=1, help="CPU-time limit per agent process, in seconds.")
    ] = None,
    cpus: Annotated[
        int,
        typer.Option(min=1, help="Cores' worth of CPU time an agent may use at once (where cgroups work)."),
    ] = DEFAULT_CPUS,
    ponder: Annotated[
        bool,
        typer.Option(
            "--ponder",
            help="Let agents run while not deciding (by default they are frozen between decisions).",
        ),
    ] = False,
    record: Annotated[
        Path | None,
        typer.Option(help="Write the match record (JSON) to this file (checked before the match)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the table.")
    ] = False,
    sandbox: Annotated[str | None, typer.Option(help=MATCH_SANDBOX_HELP)] = None,
    human_clock: Annotated[
        float,
        typer.Option(
            min=1, help="Clock per decision of a `--agent human` seat, in seconds (the bank is --bank-ms)."
        ),
    ] = DEFAULT_HUMAN_CLOCK_S,
    port: Annotated[
        int,
        typer.Option(
            min=0, max=65535, help="Port of the page a `--agent human` plays on (127.0.0.1; 0: any free one)."
        ),
    ] = 0,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the `--agent human` page in the default browser.")
    ] = False,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Serve a page following the match as it is played (on 127.0.0.1 only; its address is "
            "printed), kept up after the end until Ctrl-C.",
        ),
    ] = False,
    watch_port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port of the --watch page (0: any free one).")
    ] = 0,
) -> None:
    """Play one match and print each seat's agent, score, rank and fault.

    `--agent human` seats you: the command prints the address of a local page (127.0.0.1) where
    you play that seat in your browser, seeing what a bot in that seat would see.

    Example: arena play --game zapotec --agent random --agent examples/bots/first_option.py --seed 7

    Example: arena play -g zapotec -a ismcts -O 0:iterations=200 --automaton cocijobot

    Example: arena play -g zapotec -a human --automaton cocijobot --open
    """
    from arena.match.lineup import setup_state
    from arena.match.referee import run_match

    if record is not None:
        check_output_path(record, "--record")
    registry = load_registry()
    use_sandbox(sandbox)
    agents = list(agent)
    if players is not None:
        if players < len(agents):
            raise fail(f"--players {players} is fewer than the {len(agents)} --agent given")
        agents += [agents[-1]] * (players - len(agents))
    try:
        game_obj = registry.game(game)
    except PluginError as error:
        raise fail(str(error)) from None
    spec = MatchSpec(
        game=game,
        agents=tuple(agents),
        seed=random.randrange(2**31) if seed is None else seed,
        options=parse_options(game_obj, option or []),
        automaton=automaton,
        agent_options=parse_agent_options(
            agent_option or [], len(agents), [registry.agents.get(name) for name in agents]
        ),
        move_ms=move_ms,
        bank_ms=bank_ms,
        memory_mb=memory_mb,
        cpu_seconds=cpu_seconds,
        cpus=cpus,
        ponder=ponder,
    )
    with _match_errors():
        setup_state(spec, registry)  # a bad match fails here, before any process starts
    if HUMAN in spec.agents:
        if watch:
            raise fail(
                "--watch is for matches of bots: a `--agent human` seat follows the match on its own page"
            )
        with _match_errors():
            outcome = _play_in_browser(spec, registry, round(human_clock * 1000), port, open_browser)
        _report_play(outcome, spec, game, record, as_json)
        return
    with ExitStack() as stack:
        watcher = stack.enter_context(_watching(spec, registry, watch_port)) if watch else None
        with _match_errors():
            with _status(not as_json, f"playing {game} ({', '.join(spec.agents)}), seed {spec.seed}"):
                outcome = run_match(spec, registry, str(watcher.live) if watcher else None)
        if watcher is not None:
            watcher.finish(outcome)
        _report_play(outcome, spec, game, record, as_json)
        if watcher is not None:
            say(f"the match is over; its page stays at {watcher.url} until Ctrl-C", err=True)
            watcher.wait()


def _report_play(
    outcome: MatchOutcome, spec: MatchSpec, game: str, record: Path | None, as_json: bool
) -> None:
    """Print a played match's result (and save its record); the error line if something failed."""
    # The match is played: an output error from here on must not lose it.
    problem = None
    if record is not None:
        problem = save_or_rescue(record, json.dumps(outcome.record, indent=1) + "\n", "the record")
    if as_json:
        seats = [asdict(s) for s in outcome.seats]
        typer.echo(json.dumps({"game": game, "seed": spec.seed, "options": spec.options, "seats": seats}))
    else:
        typer.echo(f"{game} seed {spec.seed}" + (f"  (record: {record})" if record and not problem else ""))
        say(seat_table(outcome.seats))
        for fault in outcome.record["faults"]:
            say(f"seat {fault['seat']} forfeited ({fault['fault']}, {fault['phase']}): {fault['detail']}")
    if problem:
        raise fail(problem, 1)
    unstarted = _unstarted(outcome.record["faults"])
    if unstarted:
        raise fail(unstarted, 1)


def _play_in_browser(
    spec: MatchSpec, registry: Registry, human_ms: int, port: int, open_browser: bool
) -> MatchOutcome:
    """``run_match`` with the ``human`` seats played on local pages (arena/web/human_play.py)."""
    try:  # the web stack loads only when a person plays
        from arena.web.human_play import human_seats, play_with_humans
    except ImportError as error:
        raise fail(
            f"playing in the browser needs the web extra: pip install -e '.[web]' ({error.name} is missing)"
        ) from None
    seats = human_seats(spec, human_ms)

    def announce(addresses: list[str]) -> None:
        for seat, address in zip(seats, addresses, strict=True):
            say(
                f"seat {seat.seat} (human): open {address}  (clock {human_ms / 1000:g} s a decision; Ctrl-C stops)",
                err=True,
            )
            if open_browser:
                import webbrowser  # here: its import cost every command's start ~12 ms

                webbrowser.open(address)

    try:
        return play_with_humans(spec, registry, seats, port, announce)
    except OSError as error:
        raise fail(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror or error} (try another --port)"
        ) from None


@contextmanager
def _watching(spec: MatchSpec, registry: Registry, port: int) -> Iterator[Watch]:
    """The --watch page of ``spec``'s match, served while inside (its address printed on stderr)."""
    try:  # the web stack loads only for --watch
        from arena.web.watch import Watch
    except ImportError as error:
        raise fail(
            f"--watch needs the web extra: pip install -e '.[web]' ({error.name} is missing)"
        ) from None
    try:
        watcher = Watch(spec, registry, port)
    except OSError as error:
        raise fail(f"--watch cannot listen on 127.0.0.1:{port}: {error.strerror or error}") from None
    try:
        watcher.start()
        say(f"watch the match at {watcher.url}", err=True)
        yield watcher
    finally:
        watcher.close()


def _unstarted(faults: list[dict]) -> str | None:
    """The error line for seats whose agent never got to play (a fault before or at its ``ready``),
    or None: such a match says nothing about the bots, so `arena play` exits with status 1."""
    seats = [str(fault["seat"]) for fault in faults if fault["phase"] == "handshake"]
    if not seats:
        return None
    return f"the agent of seat {', '.join(seats)} could not start (see its fault above); the match proves nothing"


@contextmanager
def _match_errors() -> Iterator[None]:
    """Turn a refused match, Ctrl-C or SIGTERM into one error line and the usual exit status."""
    from arena.match.lineup import MatchSetupError
    from arena.match.referee import Terminated

    try:
        yield
    except MatchSetupError as error:
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise fail("interrupted; every agent process was stopped", 130) from None
    except Terminated as error:
        raise fail(str(error), 143) from None


@contextmanager
def _status(show: bool, text: str) -> Iterator[None]:
    """A spinner on stderr while work runs (only on a terminal)."""
    console = stderr_console()
    if show and console.is_terminal:
        with console.status(text):
            yield
    else:
        yield


@app.command()
def replay(
    record: Annotated[Path, typer.Argument(help="A record written by `arena play --record FILE`.")],
    final: Annotated[bool, typer.Option("--final", help="Print only the final position.")] = False,
) -> None:
    """Re-run a recorded match on the engine, check it gives the recorded result, and print it step by step."""
    try:
        data = load_record(str(record))
    except ReplayError as error:
        raise fail(str(error)) from None
    registry = load_registry()
    try:
        game = registry.game(data["game"])
    except PluginError as error:
        raise fail(str(error)) from None
    names = {entry["seat"]: entry.get("display") or entry["agent"] for entry in data["agents"]}

    def show(step: ReplayStep, state: State) -> None:
        by = " (random policy: forfeited seat)" if step.by == "random" else ""
        say(f"--- move {step.index}: seat {step.seat} ({names.get(step.seat, '?')}) plays {step.label}{by}")
        say(state.render())

    try:
        state = replay_record(data, game, None if final else show)
    except ReplayError as error:
        raise fail(f"replay does not match the record: {error}", 1) from None
    if final:
        say(state.render())
    result = data["result"]
    typer.echo(f"replay OK: {len(data['moves'])} moves, scores {result['scores']}, ranks {result['ranks']}")
    for fault in data["faults"]:
        say(f"seat {fault['seat']} forfeited ({fault.get('fault')}): {fault.get('detail')}")


@app.command()
def check(
    agent: Annotated[
        str, typer.Argument(help="A plugin agent's name, a path to an executable or a bot package folder.")
    ],
    game: Annotated[
        str | None,
        typer.Option("--game", "-g", help="Check on this game only (default: every game it claims)."),
    ] = None,
    move_ms: Annotated[int, typer.Option(min=1, help="Clock per decision, in milliseconds.")] = 1000,
    sandbox: Annotated[str | None, typer.Option(help=MATCH_SANDBOX_HELP)] = None,
    ladder: Annotated[
        Path | None,
        typer.Option(
            "--ladder",
            "-l",
            help="Run a bot package through exactly what a submission to this ladder goes through.",
        ),
    ] = None,
) -> None:
    """Conformance run for bot authors: short matches against random in every seat count and seat.

    Reports handshake and per-move times, protocol errors and forfeits with their cause, and
    ends with PASS or FAIL (exit status 1). With --ladder, a bot package goes through the
    submission's own steps (checks, build, validation games, with that ladder's limits and clocks) in a
    throw-away folder, as a competition server would run them.
    """
    if ladder is not None:
        check_package(Path(agent), ladder)
        return
    from rich.progress import Progress

    from arena.match.conformance import CheckReport, check_specs
    from arena.match.lineup import MatchSetupError
    from arena.match.referee import run_match

    registry = load_registry()
    use_sandbox(sandbox)
    try:
        specs = check_specs(agent, registry, game, move_ms=move_ms)
    except (MatchSetupError, PluginError) as error:
        raise fail(str(error)) from None
    report = CheckReport(agent)
    with _match_errors():
        with Progress(console=stderr_console(), transient=True) as progress:
            task = progress.add_task(f"checking {agent}", total=len(specs))
            for spec, seat in specs:
                report.add(run_match(spec, registry), seat)
                progress.advance(task)
    for line in report.summary_lines():
        say(line)
    if not report.passed:
        raise typer.Exit(1)


@app.command("new-bot")
def new_bot(
    name: Annotated[str, typer.Argument(help="The bot's agent name, e.g. my-bot (its package: my_bot).")],
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="The game it claims (default: every installed game).")
    ] = None,
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir", "-d", help="Where to write the package (default: ./NAME); must be absent or empty."
        ),
    ] = None,
) -> None:
    """Write a ready bot package: pyproject with the entry point, the tlachtli.toml manifest, the
    agent, a test, a README.

    Then: pip install -e NAME, and `arena agents` lists it, `arena check NAME` passes; or
    `arena submit NAME --ladder LADDER` enters the folder in a ladder, sandboxed.
    """
    registry = load_registry()
    try:
        if game is not None:
            registry.game(game)
        check_name(name, set(registry.agents))
        target = directory if directory is not None else Path(name)
        example = registry.games.get(game or "zapotec")  # the game the strategy's example is taken from
        written = write_package(target, render(name, game, example, sorted(registry.games)))
    except (NewBotError, PluginError) as error:
        raise fail(str(error)) from None
    for path in written:
        typer.echo(f"wrote {path}")
    typer.echo(f"next: pip install -e {target}  then  arena agents; pytest {target}; arena check {name}")


register_tournament_commands(app)  # run, leaderboard, matches, head-to-head, export, record
app.add_typer(cluster_app, name="cluster")  # arena cluster init
app.add_typer(db_app, name="db")  # arena db upgrade, arena db copy
app.command()(compare)
app.command()(serve)  # the web arena (arena/web/)
register_submission_commands(app)  # submit, bots
register_user_commands(app)  # users (a competition's accounts)
app.add_typer(season_app, name="season")  # arena season start|status|stop|final
reflow_commands(app)  # last: every command's help wraps to the terminal
