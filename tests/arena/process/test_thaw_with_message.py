"""A frozen agent is thawed only once its message is in its pipe (one wake-up per
decision, not two), and still gets a message larger than the pipe, and still exits after `end`."""

from __future__ import annotations

import fcntl
import os
import struct
import termios

import pytest
import trio

from arena.process.connection import AgentProcess
from arena.process.limits import BotCgroup

_PROBE = BotCgroup.create(None)
FREEZER = _PROBE is not None and _PROBE.freezer is not None
if _PROBE is not None:
    _PROBE.remove()
pytestmark = pytest.mark.skipif(not FREEZER, reason="no cgroup freezer here (not root, or not mounted)")


def pipe_holds(fd: int) -> int:
    """Bytes waiting in the pipe that ``fd`` is an end of (FIONREAD works on either end)."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def kernel_says_frozen(directory: str) -> bool:
    """Whether the kernel has finished freezing the group (v2 ``cgroup.events``, v1 ``freezer.state``)."""
    events = os.path.join(directory, "cgroup.events")
    if os.path.exists(events):
        with open(events) as handle:
            return "frozen 1" in handle.read().split("\n")
    with open(os.path.join(directory, "freezer.state")) as handle:
        return handle.read().strip() == "FROZEN"


async def frozen_cat(nursery: trio.Nursery) -> AgentProcess:
    """`cat` as an agent that may not ponder, frozen as between its decisions: it echoes each frame.
    A freeze takes effect when the kernel next stops the process, not when it is asked for: on a
    loaded machine `cat` could still read a message sent at once (as one between decisions is
    not), so this waits until the kernel says the group is frozen."""
    agent = AgentProcess(["cat"], ponder=False)
    await agent.start(nursery)
    agent.pause()
    assert agent.cgroup is not None and agent.cgroup.freezer is not None and agent.cgroup.freezer.frozen
    with trio.fail_after(10):
        while not kernel_says_frozen(agent.cgroup.directories["freezer"]):
            await trio.sleep(0.001)
    return agent


def test_a_frozen_agent_is_thawed_with_its_message_already_in_its_pipe():
    seen_at_thaw: list[int] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            agent = await frozen_cat(nursery)
            try:
                assert agent.cgroup is not None and agent.process is not None
                thaw = agent.cgroup.thaw

                def recording_thaw() -> None:
                    assert agent.process is not None and agent.process.stdin is not None
                    seen_at_thaw.append(pipe_holds(agent.process.stdin.fileno()))
                    thaw()

                agent.cgroup.thaw = recording_thaw  # type: ignore[method-assign]
                message = {"type": "decide", "id": 1}
                with trio.fail_after(10):
                    await agent.send(message, resume=True)
                    assert await agent.receive() == message  # thawed: it answered
            finally:
                await agent.kill()

    trio.run(main)
    assert seen_at_thaw and seen_at_thaw[0] > 0  # before: thawed first, with an empty pipe


def test_a_message_larger_than_the_pipe_reaches_a_frozen_agent():
    # Only the first write fits in the pipe (64 KiB); the rest needs the agent reading, so it
    # must be thawed before the referee waits, else the send would time out.
    message = {"type": "decide", "id": 2, "obs": {"blob": "x" * 600_000}}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            agent = await frozen_cat(nursery)
            agent.buffer.limit = 1 << 21
            try:
                with trio.fail_after(10):
                    async with trio.open_nursery() as both:
                        both.start_soon(agent.send, message, trio.current_time() + 5, True)
                        assert await agent.receive() == message
            finally:
                await agent.kill()

    trio.run(main)


def test_a_frozen_agent_reads_end_and_exits_by_itself():
    async def main() -> int | None:
        async with trio.open_nursery() as nursery:
            agent = await frozen_cat(nursery)
            try:
                with trio.fail_after(10):
                    await agent.finish({"type": "end", "result": {}, "reason": "finished"})
                assert agent.process is not None
                return agent.process.returncode
            finally:
                await agent.kill()

    assert trio.run(main) == 0  # it read `end` and left when its stdin closed: not killed (-9)
