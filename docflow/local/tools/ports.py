"""Free loopback ports, found by binding to them: one port, or a block for a local stack."""

from __future__ import annotations

import socket

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


def free_port_base(
    first: int = 20000, step: int = 20, span: int = STACK_SPAN, last: int = 60000
) -> int:
    """The first base from `first` on, in steps of `step`, with `span` free ports above it.
    Callers running at once start from different `first`s (a range of their own, or the pid)."""
    for base in range(first, last, step):
        if all(is_free(base + offset) for offset in range(span)):
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
