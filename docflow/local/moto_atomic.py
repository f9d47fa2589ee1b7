"""Make moto's DynamoDB answer one request at a time, as the real service's items behave.

moto checks a condition and then writes, and rolls a failed transaction back by restoring a
copy of the table, with no lock: two threads can both pass one condition, and a rollback can
erase another thread's write. Real DynamoDB makes each request atomic. The recorder's
guarantees rest on that, so the local stack and the tests serialize moto's DynamoDB requests.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from moto.dynamodb.responses import DynamoHandler

_LOCK = threading.RLock()
_PATCHED = "_docflow_atomic"


def make_dynamodb_atomic() -> None:
    if getattr(DynamoHandler.call_action, _PATCHED, False):
        return
    original = DynamoHandler.call_action

    @functools.wraps(original)
    def call_action(self: Any) -> Any:
        with _LOCK:
            return original(self)

    setattr(call_action, _PATCHED, True)
    DynamoHandler.call_action = call_action  # type: ignore[method-assign]
