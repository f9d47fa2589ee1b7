"""Free loopback ports, found by binding to them: one port, or a block for a local stack.

A block is also reserved, machine-wide, for the life of the process that found it: a lock file
per port, held with flock. Binding alone cannot keep a block: a benchmark that kills its stack
and brings it back leaves the ports free in between, and another process looking for a block
at that moment would take them (CI runs two benchmarks' stacks side by side)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import tempfile
from pathlib import Path

# A local stack takes base+0 (moto), +1 (runner), +2 (host) and +10 (review): keep a block free.
STACK_SPAN = 12


def free_port() -> int:
    """A port the system has free now (bound to port 0, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


LOCKS = Path(tempfile.gettempdir()) / "docflow-port-locks"
_held: list[int] = []  # the descriptors of this process's reservations: closed when it exits


def _reserve(ports: range) -> bool:
    """Lock every port of the block, or none: False when another holder has one of them."""
    LOCKS.mkdir(exist_ok=True)
    taken: list[int] = []
    for port in ports:
        fd = os.open(LOCKS / f"{port}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            for held in taken:
                with contextlib.suppress(OSError):
                    os.close(held)
            return False
        taken.append(fd)
    _held.extend(taken)
    return True


# Where blocks are searched when a start is not given, or wraps: above the well-known and
# registered ports most services take, below the kernel's ephemeral range.
FLOOR = 10000


def ephemeral_ports() -> range:
    """The ports the kernel gives outgoing connections. A listener there can find its port
    taken at any moment by a client socket (a boto3 call, a browser) that drew it, and a stack
    that is killed and brought back must bind the same ports again: blocks stay below it."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return range(int(low), int(high) + 1)
    except (OSError, ValueError):
        return range(32768, 61000)  # Linux's default


def free_port_base(
    first: int = 20000,
    step: int = 20,
    span: int = STACK_SPAN,
    last: int | None = None,
    reserve: bool = True,
) -> int:
    """The first base from `first` on, in steps of `step`, with `span` free ports above it,
    reserved for this process unless `reserve` is False (a base only suggested to a person).
    The search stays below the ephemeral range (`last` defaults to its start) and wraps round
    to FLOOR. No other call, in this process or another, is given a reserved port until its
    holder exits."""
    top = (last or ephemeral_ports().start) - span
    first = first if FLOOR <= first <= top else FLOOR
    for base in [*range(first, top + 1, step), *range(FLOOR, first, step)]:
        ports = range(base, base + span)
        if all(is_free(port) for port in ports) and (not reserve or _reserve(ports)):
            return base
    raise RuntimeError(f"no free block of {span} ports from {first}")


def can_serve(port: int) -> bool:
    """Could a server listen on this loopback port now? Probed as the stack's servers bind
    (SO_REUSEADDR, as werkzeug and http.server set it), so the connections a stack that just
    stopped left in TIME_WAIT do not count as taken, and a listener does."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen(1)
        except OSError:
            return False
    return True
