"""moto's S3 EventBridge events as S3 sends them: a sequencer that grows, and `etag`.

S3 stamps each event of a key with a hexadecimal sequencer that orders that key's events, and
docflow decides which version's run is the newest by it. moto sends one constant sequencer
(`617f08299329d189`) and an event time in whole seconds, so two uploads of one key within a
second tie, and the newer version's run can lose to the older one in the read model. Here each
event carries a sequencer from the wall clock in nanoseconds, forced to grow within the process
and, being time based, across restarts of the local stack.

moto also names the object's ETag `eTag` (its S3 notifications' spelling); S3's EventBridge
event names it `etag` (Amazon S3 User Guide, "EventBridge event message structure"), the one
spelling the starter reads (Powertools' `S3EventBridgeNotificationObject.etag`).
"""

from __future__ import annotations

import functools
import threading
import time
from typing import Any

import moto.s3.notifications as s3_notifications
from moto.events.models import Rule

_PATCHED = "_docflow_sequencer"
_LOCK = threading.Lock()
_last = 0
_current = threading.local()


def next_sequencer() -> str:
    """A 24-digit upper-case hex number, greater than every one given before in this process."""
    global _last
    with _LOCK:
        _last = max(_last + 1, time.time_ns())
        return f"{_last:024X}"


def make_s3_events_as_s3_sends_them() -> None:
    original_send = s3_notifications._send_event_bridge_message
    if getattr(original_send, _PATCHED, False):
        return

    @functools.wraps(original_send)
    def send_with_sequencer(*args: Any, **kwargs: Any) -> Any:
        _current.sequencer = next_sequencer()
        try:
            return original_send(*args, **kwargs)
        finally:
            _current.sequencer = None

    original_targets = Rule.send_to_targets

    @functools.wraps(original_targets)
    def send_to_targets(self: Any, event: Any, *args: Any, **kwargs: Any) -> Any:
        sequencer = getattr(_current, "sequencer", None)
        obj = (event.get("detail") or {}).get("object") if isinstance(event, dict) else None
        if sequencer and isinstance(obj, dict):  # an S3 event, sent by the patch above
            if "sequencer" in obj:
                obj["sequencer"] = sequencer
            if "eTag" in obj:
                obj["etag"] = obj.pop("eTag")
        return original_targets(self, event, *args, **kwargs)

    setattr(send_with_sequencer, _PATCHED, True)
    s3_notifications._send_event_bridge_message = send_with_sequencer
    Rule.send_to_targets = send_to_targets  # type: ignore[method-assign,assignment]  # the patch
