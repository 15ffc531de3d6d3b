"""The referee's handle on a zygote's child (arena/process/zygote.py ZygoteChild): its exit status
is read once, and its descriptors are closed once, whoever asks first."""

from __future__ import annotations

import os
import socket

import pytest

from arena.process.zygote import ZygoteChild

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs pidfd_open (Linux 5.3+)")


def test_a_waiter_woken_after_a_poll_read_the_status_closes_nothing_again():
    # `arena run --jobs 4` under load: `returncode` (polled by the kill path) read the status and
    # closed the pidfd while the task in `wait()` was already woken as readable; that task then read
    # again and closed the pidfd's number a second time (EBADF, or worse, a descriptor reused).
    status, monitor = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pipes = [os.pipe() for _ in range(3)]
    ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
    child = ZygoteChild(os.pidfd_open(os.getpid()), status, *ours)
    try:
        monitor.send(b"0")  # the monitor's report: exit status 0
        assert child.returncode == 0  # the poll reads it and closes the pidfd and the socket
        reused = os.open(os.devnull, os.O_RDONLY)  # most likely the pidfd's number, free again
        try:
            child._collect(block=True)  # what the woken waiter did next
            os.fstat(reused)  # still open: nothing was closed twice
            assert child.returncode == 0  # and the status read stays
        finally:
            os.close(reused)
    finally:
        monitor.close()
        for read, write in pipes:  # the child's ends; ours belong to its streams, closed with them
            for fd in (read, write):
                if fd not in ours:
                    os.close(fd)
        del child
