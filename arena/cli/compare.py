"""``arena compare NEW OLD``: a sequential test of NEW against OLD (arena/tournament/plan/compare.py, arena/tournament/stats/sprt.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import fail, load_registry, parse_agent_settings, parse_options
from arena.cli.stores import DEFAULT_DB, DbOption, open_for_writing, store_errors
from arena.registry.plugins import PluginError
from arena.text.files import INT64
from arena.tournament.store.api import LadderRun, StoreError
from arena.tournament.store.base import SqlStore as Store
from arena.tournament.store.opening import shown

# The comparison's machinery (trio, the runner, rich's progress) is imported by the command
# itself: every `arena` process imports this module, most never compare.
if TYPE_CHECKING:
    from arena.tournament.plan.compare import Comparison
    from arena.tournament.stats.sprt import SprtState

INTERRUPTED = "interrupted: finished matches are stored; run the same command again to resume"


def compare(
    new: Annotated[
        str, typer.Argument(metavar="NEW", help="The candidate: a plugin agent or an executable's path.")
    ],
    old: Annotated[str, typer.Argument(metavar="OLD", help="The agent to beat (plugin agent or path).")],
    game: Annotated[str, typer.Option("--game", "-g", help="Game id (see `arena games`).")],
    players: Annotated[
        int, typer.Option(min=1, help="Agent seats per match. 2 without opponents: NEW plays OLD directly.")
    ] = 2,
    opponent: Annotated[
        list[str] | None,
        typer.Option(
            help="Agent in the other seats of a paired comparison (repeatable, used in turn; default: random)."
        ),
    ] = None,
    automaton: Annotated[
        str | None,
        typer.Option(help="The game's automaton takes an extra seat (e.g. teotibot; solo with --players 1)."),
    ] = None,
    elo0: Annotated[float, typer.Option(help="H0: NEW - OLD is this many Elo (logistic).")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: NEW - OLD is this many Elo; must exceed elo0.")] = 10.0,
    alpha: Annotated[float, typer.Option(help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Chance of accepting H0 when H1 holds.")] = 0.05,
    max_deals: Annotated[int, typer.Option(min=1, help="Stop undecided after this many deals.")] = 2000,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Matches played at once; default: the cores.")
    ] = None,
    db: DbOption = DEFAULT_DB,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Game option key=value (repeatable).")
    ] = None,
    new_option: Annotated[
        list[str] | None,
        typer.Option(metavar="KEY=VALUE", help="Agent option for NEW, e.g. iterations=200 (repeatable)."),
    ] = None,
    old_option: Annotated[
        list[str] | None,
        typer.Option(metavar="KEY=VALUE", help="Agent option for OLD, e.g. iterations=100 (repeatable)."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Base seed of the deals; default: a secret one, drawn and shown once the test stops."
        ),
    ] = None,
    move_ms: Annotated[int, typer.Option(min=1, help="Clock per decision, in milliseconds.")] = 1000,
    name: Annotated[
        str | None,
        typer.Option(help="Name the comparison is stored under; default: 'compare NEW vs OLD (GAME)'."),
    ] = None,
    new_run: Annotated[
        bool, typer.Option("--new", help="Start afresh even if this comparison was run before.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Is NEW better than OLD? Play deals until a sequential test (SPRT) decides, and stop.

    Two players: NEW and OLD meet on each deal in both seatings. Otherwise (--players 3,
    --opponent, --automaton) NEW and OLD each play every deal in every seat against the same
    opponents, and are compared match for match. Prints the log-likelihood ratio with its
    bounds, the Elo difference with its 95% interval and the verdict. The matches are stored
    in --db; the same command again resumes (or, if already decided, just reports).
    See docs/ratings.md.

    Example: arena compare ./bots/v2 ./bots/v1 --game zapotec --elo1 20

    Example: arena compare ismcts ismcts -g zapotec --new-option iterations=200 --old-option iterations=100
    """
    from arena.match.lineup import MatchSetupError, resolve_agent, setup_state
    from arena.tournament.plan.compare import CompareError, make_comparison, schedule, with_run_seed
    from arena.tournament.run.compare import play
    from arena.tournament.run.runner import default_jobs
    from arena.tournament.stats.sprt import SprtError, SprtSettings

    if seed is not None and not INT64[0] <= seed <= INT64[1]:  # it is stored: SQLite's integers are 64-bit
        raise fail(f"--seed {seed} is out of range: give an integer within -2**63 .. 2**63-1")
    registry = load_registry()
    try:
        game_obj = registry.game(game)
    except PluginError as error:
        raise fail(str(error)) from None

    try:
        for agent in (new, old, *(opponent or [])):
            resolve_agent(agent, registry, game)
        if automaton is None and players == 1 and game_obj.automata:
            automaton = game_obj.automata[0]  # solo: the game's own automaton, as in a solo ladder
        comparison = make_comparison(
            name or "",
            game,
            new,
            old,
            players,
            opponent or (),
            automaton,
            new_options=parse_agent_settings(new_option or [], "--new-option", registry.agents.get(new)),
            old_options=parse_agent_settings(old_option or [], "--old-option", registry.agents.get(old)),
            options=parse_options(game_obj, option or []),
            seed=seed or 0,
            secret=seed is None,  # as a ladder without a seed: no deal can be computed in advance
            move_ms=move_ms,
            settings=SprtSettings(elo0, elo1, alpha, beta),
        )
        setup_state(schedule(comparison, 1)[0].spec, registry)  # a bad setup fails before any match
    except (CompareError, SprtError, MatchSetupError) as error:
        raise fail(str(error)) from None
    workers = jobs or default_jobs()
    store = open_for_writing(db)
    with store_errors(), store:
        run = _open(store, comparison, new_run, db)
        comparison = with_run_seed(comparison, run)
        store.reset_interrupted(run.id)
        with _Display(quiet, max_deals) as display:
            try:
                report = play(store, run, comparison, max_deals, workers, display.show)
            except KeyboardInterrupt:
                raise fail(INTERRUPTED, 130) from None
    _print_result(comparison, report.state, max_deals, report.played, as_json, shown=not report.interrupted)
    if report.interrupted:
        raise fail(INTERRUPTED, 130)
    if report.errors:
        for line in report.errors[:5]:
            typer.echo(f"error: {line}", err=True)
        raise typer.Exit(1)


def _open(store: Store, comparison: Comparison, new_run: bool, db: str) -> LadderRun:
    """The stored run of this comparison: the one to resume, or a new one."""
    from arena.tournament.plan.compare import ladder_record
    from arena.tournament.plan.runs import open_run

    ladder = ladder_record(comparison)
    latest = store.latest_run(ladder.name)
    if latest is not None and latest.digest != ladder.digest and not new_run:
        raise fail(
            f"{shown(db)} holds a comparison named {ladder.name!r} with other settings (started {latest.created});"
            " pass --new to start it afresh, or --name to keep both"
        )
    try:
        store.claim_writer()
        with store.planning():
            return open_run(store, ladder, [], new=new_run)  # `play` adds deals as it needs them
    except StoreError as error:
        raise fail(str(error)) from None


class _Display:
    """A progress bar over deals with the running LLR and Elo; plain lines when not on a terminal."""

    def __init__(self, quiet: bool, max_deals: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = Console(stderr=True)
        self.quiet = quiet
        self.progress = Progress(
            TextColumn("[bold]deals"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=self.console,
            disable=quiet or not self.console.is_terminal,
        )
        self.task = self.progress.add_task("deals", total=max_deals, status="")

    def __enter__(self) -> _Display:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def show(self, state: SprtState) -> None:
        status = f"{_llr_text(state)}  {_elo_text(state)}"
        self.progress.update(self.task, completed=state.deals, status=status)
        if not self.quiet and not self.console.is_terminal:
            typer.echo(f"deals {state.deals}: {status}", err=True)


def _llr_text(state: SprtState) -> str:
    return f"LLR {state.llr:+.2f} [{state.lower:+.2f}, {state.upper:+.2f}]"


def _elo_text(state: SprtState) -> str:
    if state.elo is None:
        return "Elo -"
    interval = "" if state.elo_low is None else f" [{state.elo_low:+.1f}, {state.elo_high:+.1f}]"
    return f"Elo {state.elo:+.1f}{interval}"


def _print_result(
    comparison: Comparison, state: SprtState, max_deals: int, played: int, as_json: bool, shown: bool
) -> None:
    """The result; ``shown``: the run ended by itself, so its base seed may be shown (an
    interrupted one goes on from the same seed)."""
    from arena.tournament.plan.compare import VERDICTS, interval_hint, result

    c = comparison
    design = "paired" if c.paired else "head-to-head (pentanomial)"
    if as_json:
        data = {**result(c, state), "max_deals": max_deals, "played_now": played}
        if shown:
            data["seed"] = c.seed
        typer.echo(json.dumps(data, indent=2))
        return
    verdict = VERDICTS[state.verdict]
    if state.verdict is None:
        verdict += f" after {state.deals} deal(s)" + (
            f" (--max-deals {max_deals}; raise it and run again to go on)" if state.deals >= max_deals else ""
        )
    typer.echo(f"{c.name}: {design}, {state.deals} deal(s) of {c.matches_per_deal} matches counted")
    typer.echo(f"{_llr_text(state)}  (H0: {c.settings.elo0:+g} Elo, H1: {c.settings.elo1:+g} Elo)")
    typer.echo(f"{_elo_text(state)}  (NEW - OLD, 95% interval)")
    typer.echo(verdict)
    hint = interval_hint(c.settings, state)
    if hint:
        typer.echo(f"hint: {hint}")
    if shown:
        drawn = f" (drawn in secret: --seed {c.seed} plays the same deals)" if c.secret else ""
        typer.echo(f"seed: {c.seed}{drawn}")
