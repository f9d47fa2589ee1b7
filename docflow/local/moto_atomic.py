"""Make moto answer one request at a time, as the real services' items behave.

moto checks a condition and then writes, and rolls a failed transaction back by restoring a
copy of the table, with no lock: two threads can both pass one condition, and a rollback can
erase another thread's write. Real DynamoDB makes each request atomic, and the recorder's and
the link store's guarantees rest on that. In-process (tests) DynamoDB requests are serialized;
the local stack's moto server serializes every request, which also lets it snapshot its
state consistently.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from moto.dynamodb.responses import DynamoHandler
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

MOTO_LOCK = threading.RLock()
_PATCHED = "_docflow_serialized"


def _serialize(owner: type, attribute: str) -> None:
    original = getattr(owner, attribute)
    if getattr(original, _PATCHED, False):
        return

    @functools.wraps(original)
    def serialized(self: Any, *args: Any, **kwargs: Any) -> Any:
        with MOTO_LOCK:
            return original(self, *args, **kwargs)

    setattr(serialized, _PATCHED, True)
    setattr(owner, attribute, serialized)


def make_dynamodb_atomic() -> None:
    _serialize(DynamoHandler, "call_action")


def make_moto_server_serial() -> None:
    make_dynamodb_atomic()
    _serialize(DomainDispatcherApplication, "__call__")
