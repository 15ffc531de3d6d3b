"""Ladder files: parsing, defaults, and precise errors naming the bad key and its line."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arena.registry.plugins import discover
from arena.tournament.plan.ladder import MAX_MATCHES, LadderError, find_key_line, load_ladder, parse_ladder
from arena.tournament.plan.schedule import make_schedule
from engine.api import BadOptions

GOOD = """\
name = "goof"
game = "goofspiel"
players = 2
format = "round-robin"
matches_per_pairing = 2
seed = 7

[options]
cards = 6

[clock]
move_ms = 500
bank_ms = 5000

[limits]
memory_mb = 512

[[agents]]
name = "rand-1"
agent = "random"
options = { seed = 1 }

[[agents]]
name = "rand-2"
agent = "random"
options = { seed = 2 }

[[agents]]
agent = "prize-bidder"
"""


@pytest.fixture
def registry():
    return discover()


def parse(text: str, registry, **kwargs):
    return parse_ladder(text, registry, source="x.toml", **kwargs)


def error_of(text: str, registry) -> str:
    with pytest.raises(LadderError) as caught:
        parse(text, registry)
    return str(caught.value)


def test_good_ladder_is_read_with_defaults_and_distinct_display_names(registry):
    ladder = parse(GOOD, registry)
    assert ladder.game == "goofspiel" and ladder.players == 2 and ladder.format == "round-robin"
    assert [e.name for e in ladder.entrants] == ["rand-1", "rand-2", "prize-bidder"]
    assert [e.agent for e in ladder.entrants] == ["random", "random", "prize-bidder"]
    assert ladder.entrants[1].options == {"seed": 2}
    assert ladder.options == {"cards": 6}
    assert (ladder.move_ms, ladder.bank_ms, ladder.memory_mb, ladder.cpu_seconds) == (500, 5000, 512, None)
    assert ladder.matches_per_pairing == 2 and ladder.seed == 7


def test_limits_default_to_one_core_and_no_pondering(registry):
    ladder = parse(GOOD.replace("memory_mb = 512\n", ""), registry)
    assert (ladder.memory_mb, ladder.cpus, ladder.ponder) == (None, 1, False)  # memory: 2048 MiB per bot
    ladder = parse(
        GOOD.replace("seed = 7", "seed = 7\nponder = true").replace("[limits]", "[limits]\ncpus = 2"),
        registry,
    )
    assert (ladder.cpus, ladder.ponder) == (2, True)
    spec = make_schedule(ladder)[0].spec
    assert (spec.memory_mb, spec.cpus, spec.ponder) == (512, 2, True)
    assert "key 'ponder' in the ladder must be true or false, got 1" in error_of(
        GOOD.replace("seed = 7", "seed = 7\nponder = 1"), registry
    )
    assert "limits.cpus must be at least 1" in error_of(
        GOOD.replace("[limits]", "[limits]\ncpus = 0"), registry
    )


def test_digest_ignores_layout_and_comments_but_not_content(registry):
    base = parse(GOOD, registry).digest
    assert parse("# a comment\n" + GOOD.replace("seed = 7", "seed   =   7  # same"), registry).digest == base
    assert parse(GOOD.replace("seed = 7", "seed = 8"), registry).digest != base


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (("players = 2", "palyers = 2"), 3, "unknown key 'palyers' in the ladder; known keys: name,"),
        (("seed = 7", 'seed = "seven"'), 6, "key 'seed' in the ladder must be an integer or \"secret\""),
        (("seed = 7", "seed = 1.5"), 6, "key 'seed' in the ladder must be an integer or \"secret\", got 1.5"),
        (
            ("matches_per_pairing = 2", "matches_per_pairing = 100000000"),
            5,
            "matches_per_pairing = 100000000 schedules 600,000,000 matches, over the limit of 100,000",
        ),
        (("cards = 6", "cards = 60"), 9, "option 'cards' must be within 1..13"),
        (("cards = 6", "decks = 6"), 9, "unknown option 'decks'; known options: cards"),
        (("move_ms = 500", "move_ms = 0"), 12, "clock.move_ms must be at least 1"),
        (
            ("bank_ms = 5000", "bank = 5000"),
            13,
            "unknown key 'bank' in [clock]; known keys: move_ms, bank_ms",
        ),
        (
            ('agent = "prize-bidder"', 'agent = "nobody"'),
            29,
            "unknown agent 'nobody'; known agents: ",
        ),
        (('game = "goofspiel"', 'game = "chess"'), 2, "unknown game 'chess'; known games: goofspiel"),
        (
            ('format = "round-robin"', 'format = "knockout"'),
            4,
            "unknown format 'knockout'; known formats: round-robin, gauntlet, solo, swiss",
        ),
        (('name = "rand-2"', 'name = "rand-1"'), 24, "agent name 'rand-1' is entered twice"),
        (("players = 2", "players = 9"), 3, "game 'goofspiel' takes 2 to 4 players, got players = 9"),
        (
            ("options = { seed = 2 }", "options = { seed = 2 }\ncolour = 3"),
            27,
            "unknown key 'colour' in agents[1]",
        ),
        (("[limits]", "[limits\n"), 15, "TOML syntax error"),
        (('format = "round-robin"', 'format = "gauntlet"'), 4, "format 'gauntlet' needs a 'challenger' key"),
        (('format = "round-robin"', 'format = "solo"'), 4, "game 'goofspiel' has no automaton"),
    ],
)
def test_malformed_ladders_name_the_key_and_its_line(registry, edit, line, message):
    old, new = edit
    assert old in GOOD
    text = error_of(GOOD.replace(old, new, 1), registry)
    assert text.startswith(f"x.toml:{line}: "), text
    assert message in text, text


def test_secret_seed_is_kept_out_of_the_ladder_and_changes_the_digest(registry):
    plain = parse(GOOD, registry)
    secret = parse(GOOD.replace("seed = 7", 'seed = "secret"'), registry)
    assert secret.secret_seed and not plain.secret_seed
    assert secret.seed == 0 and secret.digest != plain.digest


def test_schedule_at_the_limit_is_accepted_and_one_over_refused(registry):
    # 3 agents, 2 players: 3 pairings x 2 rotations = 6 matches per deal
    at_limit = MAX_MATCHES // 6
    ladder = parse(GOOD.replace("matches_per_pairing = 2", f"matches_per_pairing = {at_limit}"), registry)
    assert ladder.match_count == 6 * at_limit <= MAX_MATCHES
    text = error_of(
        GOOD.replace("matches_per_pairing = 2", f"matches_per_pairing = {at_limit + 1}"), registry
    )
    assert text.startswith("x.toml:5: ") and "over the limit" in text and "\n" not in text


def test_missing_required_key_and_too_few_agents(registry):
    assert "missing required key 'game'" in error_of(GOOD.replace('game = "goofspiel"\n', ""), registry)
    few = GOOD.replace("players = 2", "players = 4")
    assert "needs at least 4 agents, got 3" in error_of(few, registry)


def test_gauntlet_challenger_must_be_an_entrant(registry):
    text = GOOD.replace('format = "round-robin"', 'format = "gauntlet"\nchallenger = "zed"')
    assert "challenger 'zed' is not one of the agents: rand-1, rand-2, prize-bidder" in error_of(
        text, registry
    )
    ok = parse(
        GOOD.replace('format = "round-robin"', 'format = "gauntlet"\nchallenger = "prize-bidder"'), registry
    )
    assert ok.challenger == "prize-bidder"


def test_agent_may_be_an_executable_path_relative_to_the_ladder(registry, tmp_path: Path):
    bot = tmp_path / "bots" / "mybot"
    bot.parent.mkdir()
    bot.write_text("#!/bin/sh\n")
    ladder_file = tmp_path / "l.toml"
    ladder_file.write_text(GOOD.replace('agent = "prize-bidder"', 'agent = "./bots/mybot"'))
    with pytest.raises(LadderError, match=r"l.toml:29: agent path './bots/mybot' is not an executable file"):
        load_ladder(ladder_file, registry)
    bot.chmod(bot.stat().st_mode | stat.S_IXUSR)
    ladder = load_ladder(ladder_file, registry)
    assert ladder.entrants[2].agent == str(bot.resolve()) and ladder.entrants[2].name == "./bots/mybot"


def test_unreadable_file_is_one_clear_error(registry, tmp_path: Path):
    with pytest.raises(LadderError, match="cannot read ladder file"):
        load_ladder(tmp_path / "missing.toml", registry)


def test_find_key_line_handles_arrays_of_tables_and_inline_tables():
    lines = GOOD.splitlines()
    assert find_key_line(lines, ("agents", 1, "options", "seed")) == 26
    assert find_key_line(lines, ("agents", 2)) == 28
    assert find_key_line(lines, ("clock", "bank_ms")) == 13
    assert find_key_line(lines, ("clock", "nothing")) == 11


def test_options_the_engine_refuses_together_fail_at_load_time(registry):
    class Picky:
        id = "picky"
        version = "1"
        min_players, max_players = 2, 4
        automata = ()

        def option_schema(self):
            return {"a": {"type": "bool", "default": False}, "b": {"type": "bool", "default": False}}

        def setup(self, players, seed, options):
            if options["a"] and options["b"]:
                raise BadOptions("a and b exclude each other")

    registry.games["picky"] = Picky()
    text = GOOD.replace('game = "goofspiel"', 'game = "picky"').replace("cards = 6", "a = true\nb = true")
    text = text.replace('agent = "prize-bidder"', 'agent = "random"')
    assert (
        "x.toml:8: game 'picky' cannot be set up with these options: a and b exclude each other"
        in error_of(text, registry)
    )


def test_the_sandbox_key_is_checked(tmp_path):
    from arena.registry.plugins import discover
    from arena.tournament.plan.ladder import LadderError, load_ladder

    path = tmp_path / "l.toml"
    agents = '[[agents]]\nname = "a"\nagent = "random"\n[[agents]]\nname = "b"\nagent = "random"\n'
    path.write_text('name = "l"\ngame = "goofspiel"\nsandbox = "docker"\n' + agents)
    with pytest.raises(LadderError, match=r"l.toml:3: sandbox = 'docker': use \"bwrap\" or \"none\""):
        load_ladder(path, discover())
    path.write_text('name = "l"\ngame = "goofspiel"\nsandbox = "none"\n' + agents)
    assert load_ladder(path, discover()).sandbox == "none"


def test_a_swiss_ladder_is_limited_by_the_matches_it_plays_not_the_round_robin_it_never_plays(registry):
    from arena.tournament.plan.swiss import max_matches

    many = GOOD.split("[[agents]]")[0].replace('format = "round-robin"', 'format = "swiss"')
    many += "".join(f'[[agents]]\nname = "r{n}"\nagent = "random"\n' for n in range(300))
    # 300 agents: a round robin of 89,700 pairings x 2 rotations x 2 matches, over the limit
    assert "over the limit" in error_of(many.replace('format = "swiss"', 'format = "round-robin"'), registry)
    ladder = parse(many, registry)  # a swiss ladder stops at the limit at the latest
    assert max_matches(ladder) == MAX_MATCHES
    assert max_matches(parse(many.replace("seed = 7", "seed = 7\nmax_matches = 5000"), registry)) == 5000
    over = error_of(many.replace("seed = 7", f"seed = 7\nmax_matches = {MAX_MATCHES + 1}"), registry)
    assert "max_matches = 100001 is over the limit of 100,000" in over and "\n" not in over
