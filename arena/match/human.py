"""A seat played by a person in the browser: the connection the referee talks to instead of a process.

The referee asks a ``HumanSeat`` exactly what it asks an agent process (``hello``, ``decide``,
``end``; arena/wire/protocol.py) through the same methods (``send``, ``receive``, ``kill`` ...),
under the same clocks, and checks its answers with the same ``check_reply``. The seat keeps only
the messages the referee sent it: the page (arena/web/seat_app.py) shows the pending ``decide``
(the seat's own observation, its options) and hands a click back as an ``act``. So a human sees
what a bot in that seat would see, no more; the bot seats beside it are untouched processes in
their sandboxes.

Only the latest page opened for the seat may answer (``claim``): a second tab takes the seat
over and the first one is told so. A page that goes away simply stops answering: the seat's
clock runs out and it forfeits like any silent bot, with a detail that says so.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import trio

from arena.match.spec import DEFAULT_HUMAN_CLOCK_S, HUMAN, HUMAN_VERSION
from arena.wire.faults import AgentFault

if TYPE_CHECKING:
    from engine.api import State

__all__ = ["DEFAULT_HUMAN_CLOCK_S", "HUMAN", "HUMAN_VERSION", "ChoiceRefused", "HumanSeat"]


class ChoiceRefused(Exception):
    """A choice posted by a page that cannot be taken; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class HumanSeat:
    """The referee's connection to a person playing ``seat`` in a browser page.

    ``move_ms``: the seat's clock per decision (a person's is longer than a bot's); the game's
    time bank is the match's. ``token``: the secret part of the page's address.
    """

    def __init__(self, seat: int, move_ms: int) -> None:
        self.seat = seat
        self.move_ms = move_ms
        self.token = secrets.token_urlsafe(16)
        self.hello: dict[str, Any] | None = None
        self.question: dict[str, Any] | None = None  # the pending ``decide``, if any
        self.last_decide: dict[str, Any] | None = None  # the board stays drawn between decisions
        self.deadline = math.inf  # trio time by which the pending question must be answered
        self.outcome: dict[str, Any] | None = None  # the final table for the page (``conclude``)
        self.forfeit_note: str | None = None
        self.stopped = False
        self.goodbye: dict[str, Any] | None = None  # the referee's ``end``, when the seat finished the match
        self.tab: str | None = None  # the page allowed to answer
        self.pages = 0  # pages opened for this seat
        self.version = 0  # bumped on every change a page must see
        self.seen = -1  # the latest version the seat's current page was given
        self.log: list[str] = []  # the game's public log so far (``witness``)
        self.answered_at = 0  # len(log) when the person last chose: what follows is new to them
        self.observation: dict[str, Any] | None = None  # the seat's observation after the latest move
        self.observed = 0  # moves witnessed (which observation the page's board shows)
        self.final: State | None = None  # the final position, once the game is over
        self._changed = trio.Event()
        self._ready: list[dict[str, Any]] = []
        self._answers_in, self._answers = trio.open_memory_channel[dict[str, Any]](1)

    # -- the referee's side: the same methods as arena.process.connection.AgentProcess ------------

    def prepare(self) -> None:
        """Nothing to start before the handshake clock."""

    async def start(self, nursery: trio.Nursery) -> None:
        """Nothing to spawn: the person's page is served by the match's web server."""

    async def send(
        self, message: Mapping[str, Any], deadline: float = math.inf, resume: bool = False
    ) -> None:
        """Take a referee message: the hello (answered ``ready``), a decision, or the end
        (``resume``: nothing to thaw)."""
        message = dict(message)  # kept as sent, and typed as the page reads it
        kind = message.get("type")
        if kind == "hello":
            self.hello = message
            self._ready.append({"type": "ready", "name": HUMAN, "version": HUMAN_VERSION})
        elif kind == "decide":
            self.question = self.last_decide = message
            clock = message["clock"]
            self.deadline = trio.current_time() + (clock["move_ms"] + clock["bank_ms_left"]) / 1000
        self._bump()

    async def receive(self, deadline: float = math.inf, linger_ms: float = 0.0) -> dict[str, Any]:
        """The ``ready``, or the page's answer to the pending decision by ``deadline``; when
        none came, the seat forfeits on its clock (``timeout``), saying the page gave no choice."""
        if self._ready:
            return self._ready.pop(0)
        with trio.move_on_at(deadline):
            return await self._answers.receive()
        asked = self.question
        self.question = None
        self._bump()
        seconds = (asked["clock"]["move_ms"] + asked["clock"]["bank_ms_left"]) / 1000 if asked else 0
        where = "no page was open for it" if self.tab is None else "the page gave no choice (closed tab?)"
        self.forfeit_note = f"no choice within {seconds:g} s: {where}"
        raise AgentFault("timeout", f"human seat: {self.forfeit_note}")

    def wrote_unasked(self) -> bool:
        """A page answers only a pending decision (``choose`` checks it), never unasked."""
        return False

    def pause(self) -> None:
        """Nothing to freeze: a person's clock is the referee's."""

    def resume(self) -> None:
        """Nothing to thaw."""

    def stderr_text(self) -> str:
        """A page writes no stderr."""
        return ""

    async def finish(self, goodbye: dict[str, Any] | None) -> None:
        """The match ended: the page stops asking for choices."""
        self.goodbye = goodbye
        await self.kill()

    async def kill(self) -> None:
        """The seat takes no more choices (match over, forfeited, or stopped)."""
        self.question = None
        self.stopped = True
        self._bump()

    # -- the page's side ------------------------------------------------------------------------

    def claim(self) -> str:
        """A new page takes the seat: its tab id; every older page may no longer answer."""
        self.tab = secrets.token_urlsafe(12)
        self.pages += 1
        self._bump()
        return self.tab

    def choose(self, tab: Any, decision_id: Any, choice: Any) -> None:
        """The page ``tab`` picks option ``choice`` of decision ``decision_id``; ChoiceRefused if not allowed."""
        if tab != self.tab:
            raise ChoiceRefused(
                409, "this seat is now played in another tab (the one opened last); use that one"
            )
        asked = self.question
        if asked is None or decision_id != asked["id"]:
            raise ChoiceRefused(
                409, "that decision is no longer open (answered already, or its clock ran out)"
            )
        count = len(asked["options"])
        if type(choice) is not int or not 0 <= choice < count:
            raise ChoiceRefused(
                400, f"choice {choice!r:.20} is not one of this decision's options (0..{count - 1})"
            )
        self._answers_in.send_nowait({"type": "act", "id": asked["id"], "choice": choice})
        self.answered_at = len(self.log)
        self.question = None
        self._bump()

    def witness(self, lines: list[str], observation: dict[str, Any], final: State | None = None) -> None:
        """A move was applied: the log lines it added, this seat's observation after it (what its
        next decision would show) and, when the game is over, its final position."""
        self.log.extend(lines)
        self.observation = observation
        self.observed += 1
        if final is not None:
            self.final = final
        self._bump()

    def conclude(self, outcome: dict[str, Any]) -> None:
        """The final table for the page: ``{"seats": [{seat, agent, score, rank, fault}], ...}``."""
        self.outcome = outcome
        self._bump()

    async def changed_since(self, version: int, timeout_s: float) -> None:
        """Wait until something the page shows changed after ``version`` (or ``timeout_s`` passed)."""
        with trio.move_on_after(timeout_s):
            while self.version == version:
                await self._changed.wait()

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()
