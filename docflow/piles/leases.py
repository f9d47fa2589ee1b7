"""Leases in the pool table: one holder at a time, taken by a conditional put.

A lease is an item (`lease#<what>`) naming its holder and until when it holds. Taking it
succeeds when nobody holds it, the holder's time is over, or the taker already holds it (a
retried step takes back its own lease). Two are used: `lease#pool-wait` (the one batcher that
waits for a small pool to fill) and `lease#claim` (the one batcher claiming records).
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any

from docflow.dynamo import ConditionFailed, Table


def take(ddb: Any, table: str, pk: str, holder: str, until_epoch: int) -> bool:
    """Hold `pk` until `until_epoch` (seconds); False while another holds it."""
    now = int(datetime.now(UTC).timestamp())
    try:
        Table(table, ddb).put(
            {"pk": pk, "holder": holder, "until": until_epoch, "expiresAt": until_epoch + 86_400},
            condition="attribute_not_exists(pk) OR #u < :now OR holder = :me",
            names={"#u": "until"},
            values={":now": now, ":me": holder},
        )
    except ConditionFailed:
        return False
    return True


def drop(ddb: Any, table: str, pk: str, holder: str) -> None:
    """Give `pk` up, if `holder` still holds it (a lapsed lease another took stays theirs)."""
    with contextlib.suppress(ConditionFailed):
        Table(table, ddb).delete({"pk": pk}, condition="holder = :me", values={":me": holder})
