"""Why seats forfeited: each fault's first detail line, read back from the match records.

The seats table keeps a fault's kind only (``error``, ``timeout``, ...); the line that explains it
(``flatmc raised PluginError: unknown game 'zapotec'``) is in the match's record. `arena run`'s
closing warnings, `arena matches --faults` and the web's ladder and match-list pages read it from
here, from a few records per agent and kind, never from every record of a ladder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.text.safe import printable

if TYPE_CHECKING:
    from arena.tournament.store.api import StoreReader

SAMPLE = 5  # records read per agent and fault kind to find its most common line
LINE_CHARS = 200  # a longer first line is cut here (with "...")


def first_line(detail: object) -> str:
    """The first non-blank line of a fault's detail, escaped for a terminal or a page, cut to
    LINE_CHARS characters; empty when there is none."""
    lines = [line.strip() for line in str(detail or "").splitlines() if line.strip()]
    if not lines:
        return ""
    line = printable(lines[0], newlines=False)
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 3] + "..."


def faults_by_seat(record: dict[str, Any] | None) -> dict[int, tuple[str, str]]:
    """Each faulted seat's (phase, first detail line) in a match record (its first fault)."""
    found: dict[int, tuple[str, str]] = {}
    for fault in (record or {}).get("faults", []):
        seat = fault.get("seat")
        if isinstance(seat, int) and seat not in found:
            found[seat] = (str(fault.get("phase") or ""), first_line(fault.get("detail")))
    return found


@dataclass(frozen=True)
class AgentFaults:
    """How often one agent of a ladder forfeited with one kind of fault, and the usual reason."""

    agent: str  # its display name in the ladder
    fault: str  # the kind
    count: int  # done matches in which it forfeited with this kind
    played: int  # done matches it played
    line: str  # the most common first detail line of the records read ("" if none says)
    handshake: bool  # some of them came before it played (at its start or hello)
    example: int  # the number (# in `arena matches`) of the first such match


def agent_faults(
    store: StoreReader,
    run_id: int,
    played: Mapping[str, int] | None = None,
    read: dict[int, dict[int, tuple[str, str]]] | None = None,
    faulted: Mapping[tuple[str, str], list[tuple[int, int, int]]] | None = None,
) -> list[AgentFaults]:
    """Every (agent, fault kind) of a ladder's done matches, most frequent first per agent.

    ``played``: each agent's seats in the done matches, where the caller counted them already;
    ``read``: ``faults_by_seat`` of the records read before, by match id (a server keeps it
    between views: a record never changes once stored), filled in here; ``faulted``: the forfeits
    by (agent, kind) as (match id, schedule index, seat) in schedule order, where the caller
    gathered them as it rated (a server's tally: a season's are not read again at every view).
    """
    groups: Mapping[tuple[str, str], list[tuple[int, int, int]]]
    if faulted is None:
        found_seats: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
        for seat in store.fault_seats(run_id):
            found_seats.setdefault((seat.agent, seat.fault), []).append((seat.match_id, seat.idx, seat.seat))
        groups = found_seats
    else:
        groups = faulted
    if played is None:
        played = store.seats_played(run_id, sorted({agent for agent, _ in groups}))
    read = {} if read is None else read
    found = []
    for (agent, fault), matches in groups.items():
        for match_id, _, _ in matches[:SAMPLE]:
            if match_id not in read:
                read[match_id] = faults_by_seat(store.record(match_id))
        seen = [read[match_id].get(seat, ("", "")) for match_id, _, seat in matches[:SAMPLE]]
        lines = Counter(line for _, line in seen if line)
        found.append(
            AgentFaults(
                agent,
                fault,
                len(matches),
                played.get(agent, len(matches)),
                lines.most_common(1)[0][0] if lines else "",
                any(phase == "handshake" for phase, _ in seen),
                matches[0][1],
            )
        )
    return sorted(found, key=lambda f: (f.agent, -f.count, f.fault))
