"""SQS long polling for the stack's own pollers, without holding moto's lock while waiting.

A real event source mapping long-polls: its ReceiveMessage waits up to 20 s and returns the
moment a message arrives. moto's ReceiveMessage with WaitTimeSeconds sleeps inside the request,
and the local moto server answers one request at a time, so a long poll there would stop every
other AWS call for its whole wait. So the pollers that live in the stack's process (the
intake poller) receive with WaitTimeSeconds=0 and, when the queue was empty, wait here
instead: `Arrivals.wait_after` returns as soon as moto's SQS backend has accepted a message
for that queue (every SendMessage, SendMessageBatch entry and EventBridge delivery goes
through `SQSBackend.send_message`), or after the caller's bound, whichever comes first. The
bound still matters: a message whose visibility timeout ran out becomes receivable again
without any send.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

_PATCHED = "_docflow_arrivals"
_lock = threading.Lock()
_queues: dict[str, Arrivals] = {}


class Arrivals:
    """A count of messages accepted for one queue, and a way to wait for the next one."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._count = 0

    def seen(self) -> int:
        with self._changed:
            return self._count

    def mark(self) -> None:
        with self._changed:
            self._count += 1
            self._changed.notify_all()

    def wait_after(self, seen: int, timeout_s: float) -> bool:
        """Wait until a message arrived after `seen` (a `seen()` reading taken before the
        empty receive, so one that arrived in between is not missed); True if one did."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count != seen, timeout_s)


def arrivals(queue_name: str) -> Arrivals:
    with _lock:
        found = _queues.get(queue_name)
        if found is None:
            found = _queues[queue_name] = Arrivals()
        return found


def watch_sqs_arrivals() -> None:
    """Have moto's SQS backend (in this process) count each message it accepts per queue."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.sqs.models import SQSBackend

    original = SQSBackend.send_message
    if getattr(original, _PATCHED, False):
        return

    @functools.wraps(original)
    def send_message(self: Any, queue_name: str, *args: Any, **kwargs: Any) -> Any:
        message = original(self, queue_name, *args, **kwargs)
        arrivals(queue_name).mark()
        return message

    setattr(send_message, _PATCHED, True)
    SQSBackend.send_message = send_message  # type: ignore[method-assign]  # the patch itself
