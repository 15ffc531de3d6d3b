"""The one schema of both stores, its versioned migrations, and the few places the two SQL dialects differ.

Every query is written once, with ``?`` placeholders, in SQL both SQLite and PostgreSQL accept;
``Dialect.sql`` turns it into the driver's form. The DDL is written once too: a migration names
the types that differ as ``{serial}`` (an id the database assigns), ``{int}`` (a 64-bit integer),
``{real}`` and ``{blob}``, and ``Dialect.ddl`` spells them. A migration one dialect cannot share is
a mapping from dialect name to its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# Each entry upgrades the schema from version i to i + 1; append, never edit a shipped one.
MIGRATIONS: tuple[str | Mapping[str, str], ...] = (
    """
    CREATE TABLE ladders (
        id {serial},
        name TEXT NOT NULL,
        digest TEXT NOT NULL,        -- hash of the ladder's normalised content
        game TEXT NOT NULL,
        format TEXT NOT NULL,
        source TEXT NOT NULL,        -- the file it was read from, for messages
        config TEXT NOT NULL,        -- the validated ladder as JSON
        created TEXT NOT NULL
    );
    CREATE INDEX ladders_name ON ladders (name, id);
    CREATE TABLE matches (
        id {serial},
        ladder_id {int} NOT NULL REFERENCES ladders (id),
        idx {int} NOT NULL,          -- position in schedule order (ratings replay in this order)
        key TEXT NOT NULL,
        seed {int} NOT NULL,
        spec TEXT NOT NULL,          -- MatchSpec as JSON
        entrants TEXT NOT NULL,      -- display names of the agent seats, JSON list
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done')),
        attempts {int} NOT NULL DEFAULT 0,
        started TEXT,
        finished TEXT,
        seconds {real},
        UNIQUE (ladder_id, idx)
    );
    CREATE INDEX matches_status ON matches (ladder_id, status);
    CREATE TABLE seats (
        match_id {int} NOT NULL REFERENCES matches (id),
        seat {int} NOT NULL,
        agent TEXT NOT NULL,         -- display name in the ladder (the automaton's own name)
        plugin TEXT NOT NULL,        -- what played it: plugin agent, executable or automaton
        score {int} NOT NULL,
        rank {int} NOT NULL,
        fault TEXT,
        PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_agent ON seats (agent);
    CREATE TABLE records (
        match_id {int} PRIMARY KEY REFERENCES matches (id),
        codec TEXT NOT NULL,         -- 'zlib-json'
        data {blob} NOT NULL
    );
    """,
    # 2: status 'aborted' (a match whose worker was lost MAX_FAILURES times, with the reason),
    # a per-match count of lost workers, and the base seed each run actually used (a secret one
    # is drawn at the run's start and kept only here).
    {
        # SQLite cannot change a CHECK constraint, so the matches table is rebuilt (foreign keys
        # are off during its migrations, see arena/tournament/store/sqlite.py).
        "sqlite": """
    CREATE TABLE matches_v2 (
        id INTEGER PRIMARY KEY,
        ladder_id INTEGER NOT NULL REFERENCES ladders (id),
        idx INTEGER NOT NULL,
        key TEXT NOT NULL,
        seed INTEGER NOT NULL,
        spec TEXT NOT NULL,
        entrants TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'running', 'done', 'aborted')),
        attempts INTEGER NOT NULL DEFAULT 0,
        started TEXT,
        finished TEXT,
        seconds REAL,
        failures INTEGER NOT NULL DEFAULT 0,  -- times its worker process was lost (died, stopped, hung)
        reason TEXT,                          -- why it was aborted
        UNIQUE (ladder_id, idx)
    );
    INSERT INTO matches_v2 (id, ladder_id, idx, key, seed, spec, entrants, status, attempts, started, finished, seconds)
        SELECT id, ladder_id, idx, key, seed, spec, entrants, status, attempts, started, finished, seconds
        FROM matches;
    DROP TABLE matches;
    ALTER TABLE matches_v2 RENAME TO matches;
    CREATE INDEX matches_status ON matches (ladder_id, status);
    ALTER TABLE ladders ADD COLUMN base_seed INTEGER;  -- NULL: the seed in the ladder's config
    ALTER TABLE ladders ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;  -- 1: base_seed is never shown
    """,
        "postgresql": """
    ALTER TABLE matches DROP CONSTRAINT matches_status_check;
    ALTER TABLE matches ADD CONSTRAINT matches_status_check
        CHECK (status IN ('pending', 'running', 'done', 'aborted'));
    ALTER TABLE matches ADD COLUMN failures BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE matches ADD COLUMN reason TEXT;
    ALTER TABLE ladders ADD COLUMN base_seed BIGINT;
    ALTER TABLE ladders ADD COLUMN secret BIGINT NOT NULL DEFAULT 0;
    """,
    },
    # 3: several runners on one store (PostgreSQL): a running match names the runner that claimed
    # it (a done one, the runner that stored it: host:pid:random) and until when its claim holds
    # unless renewed (seconds since the epoch, the database's clock); a match whose lease ran out
    # is pending again for any runner.
    """
    ALTER TABLE matches ADD COLUMN owner TEXT;
    ALTER TABLE matches ADD COLUMN lease {real};
    """,
    # 4: the indexes of the pages' reads at a season's scale (arena/tournament/store/reads.py): the
    # running matches and the first unplayed one in schedule order, the last activity, a bot's
    # matches latest first, the matches with a fault.
    """
    DROP INDEX matches_status;
    CREATE INDEX matches_status ON matches (ladder_id, status, idx);
    CREATE INDEX matches_activity ON matches (ladder_id, finished, started);
    DROP INDEX seats_agent;
    CREATE INDEX seats_agent ON seats (agent, match_id);
    CREATE INDEX seats_fault ON seats (fault, match_id) WHERE fault IS NOT NULL;
    """,
    # 5: seasons (a ladder run as a service, arena/tournament/run/season.py): the log a restart
    # replays, and the live state `arena season status` and the web show
    """
    CREATE TABLE season_events (
        id {serial},
        ladder_id {int} NOT NULL REFERENCES ladders (id),
        at {int} NOT NULL,            -- matches scheduled before it
        kind TEXT NOT NULL,
        data TEXT NOT NULL            -- JSON
    );
    CREATE INDEX season_events_ladder ON season_events (ladder_id, id);
    CREATE TABLE season_state (
        ladder_id {int} PRIMARY KEY REFERENCES ladders (id),
        data TEXT NOT NULL,           -- JSON
        updated TEXT NOT NULL
    );
    """,
    # 6: how many matches a run holds (any status), kept by every insert and delete, so that a
    # run's progress counts only its matches not done yet: a season's million done ones are
    # never counted again
    """
    ALTER TABLE ladders ADD COLUMN match_count {int} NOT NULL DEFAULT 0;
    UPDATE ladders SET match_count = (SELECT COUNT(*) FROM matches WHERE matches.ladder_id = ladders.id);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def latest() -> int:
    """The schema version a store is migrated to (read at call time: the tests add a migration)."""
    return len(MIGRATIONS)


TABLES = (
    "ladders",
    "matches",
    "seats",
    "records",
    "season_events",
    "season_state",
)  # in the order a copy fills them


@dataclass(frozen=True)
class Dialect:
    """How one database spells what the shared SQL leaves open."""

    name: str  # "sqlite" or "postgresql": the key of a per-dialect migration
    placeholder: str  # the driver's parameter mark
    types: Mapping[str, str]  # the DDL's {serial}, {int}, {real}, {blob}
    now: str  # an expression: the database's clock in seconds since the epoch

    def sql(self, query: str) -> str:
        """A shared query (``?`` placeholders, ``NOW_S`` for the clock) in this dialect."""
        query = query.replace("NOW_S", self.now)
        if self.placeholder == "?":
            return query
        return query.replace("%", "%%").replace("?", self.placeholder)

    def migration(self, number: int) -> list[str]:
        """The statements of migration ``number`` (0-based) in this dialect."""
        text = MIGRATIONS[number]
        if not isinstance(text, str):
            text = text[self.name]
        text = text.format(**self.types)
        return [statement for statement in text.split(";") if statement.strip()]


SQLITE = Dialect(
    "sqlite",
    "?",
    {"serial": "INTEGER PRIMARY KEY", "int": "INTEGER", "real": "REAL", "blob": "BLOB"},
    "((julianday('now') - 2440587.5) * 86400.0)",
)
POSTGRESQL = Dialect(
    "postgresql",
    "%s",
    {
        "serial": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        "int": "BIGINT",
        "real": "DOUBLE PRECISION",
        "blob": "BYTEA",
    },
    "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION",
)
