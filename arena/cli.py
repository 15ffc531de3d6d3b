"""The ``arena`` command line (tournament commands: arena/cli_tournament.py)."""

from __future__ import annotations

import typer
from tabulate import tabulate

from arena.cli_common import fail, load_registry  # noqa: F401 - fail is re-exported for command modules
from arena.cli_tournament import register as register_tournament_commands

app = typer.Typer(
    help="Tlachtli arena: run bots against each other on board-game rules engines.",
    no_args_is_help=True,
    add_completion=False,
)
register_tournament_commands(app)  # run, leaderboard, matches, head-to-head, export


@app.command()
def agents() -> None:
    """List the agents the installed plugins offer (name, games, description, source)."""
    registry = load_registry()
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
    typer.echo(tabulate(rows, headers=["agent", "games", "kind", "description", "plugin"]))


@app.command()
def games() -> None:
    """List the games (rules engines) the installed plugins offer."""
    registry = load_registry()
    rows = []
    for game_id, game in sorted(registry.games.items()):
        players = f"{game.min_players}-{game.max_players}"
        rows.append(
            [game_id, game.version, players, ", ".join(game.automata) or "-", registry.game_sources[game_id]]
        )
    typer.echo(tabulate(rows, headers=["game", "version", "players", "automata", "plugin"]))


def main() -> None:  # pragma: no cover - console entry for `python -m arena.cli`
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
