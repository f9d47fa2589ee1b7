"""Make moto answer one request at a time, as the real services' items behave.

moto checks a condition and then writes, and rolls a failed transaction back by restoring a
copy of the table, with no lock: two threads can both pass one condition, and a rollback can
erase another thread's write. Real DynamoDB makes each request atomic, and the recorder's and
the link store's guarantees rest on that. In-process (tests) DynamoDB requests are serialized;
the local stack's moto server serializes every request, which also lets it snapshot its
state consistently. Serialized, a failed transaction can be undone item by item.
"""

from __future__ import annotations

import copy
import functools
import threading
from typing import Any

from moto.dynamodb.responses import DynamoHandler
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

from docflow.local.fidelity.moto_dispatch import make_moto_dispatch_cached
from docflow.local.fidelity.moto_query import make_queries_read_one_partition
from docflow.local.fidelity.s3_events import make_s3_events_as_s3_sends_them

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
    _undo_transactions_by_item()
    # Not atomicity but the same places want it: a partition Query reads one partition.
    make_queries_read_one_partition()


class _TablesAreNotCopied:
    """Stands in for the `copy` module inside moto's DynamoDB backend: a Table "copies" to
    itself, so moto's whole-table rollback copy costs nothing; everything else is copied."""

    def __init__(self) -> None:
        # moto loads only where it is served or patched (a second of start-up elsewhere)
        from moto.dynamodb.models.table import Table

        self._table = Table

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        return value if isinstance(value, self._table) else copy.deepcopy(value, memo)


def _undo_transactions_by_item() -> None:
    """moto rolls a failed TransactWriteItems back by restoring a deep copy of every table it
    touched, taken before the transaction: a cost that grows with the table, paid by every
    transaction, under the lock that serializes moto (the reliability bench's burst drained
    in 990 s with it, 209 s without). This keeps a copy of only the items the transaction
    names, and restores those."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.dynamodb import models

    original = models.DynamoDBBackend.transact_write_items
    if getattr(original, _PATCHED, False):
        return
    # moto's models call copy.deepcopy on whole tables; this stand-in module copies nothing.
    models.copy = _TablesAreNotCopied()  # type: ignore[assignment]  # not the copy module

    @functools.wraps(original)
    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        undo = [entry for item in transact_items if (entry := _before(self, item)) is not None]
        try:
            original(self, transact_items)
        except Exception:
            for table_name, key, before in reversed(undo):
                if before is None:
                    if self.get_item(table_name, key) is not None:
                        self.delete_item(table_name, key)
                else:
                    self.put_item(table_name, before)
            raise

    setattr(transact_write_items, _PATCHED, True)
    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]  # patch


def _before(backend: Any, item: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """(table, key, the item as it is now or None) for one transaction entry, if it names one."""
    try:
        op_type, op = next(iter(item.items()))
        table_name = op["TableName"]
        table = backend.get_table(table_name)
        if op_type == "Put":
            attrs = op["Item"]
            key = {table.hash_key_attr: attrs[table.hash_key_attr]}
            if table.range_key_attr is not None:
                key[table.range_key_attr] = attrs[table.range_key_attr]
        else:
            key = op["Key"]
        current = backend.get_item(table_name, key)
    except Exception:  # moto itself refuses such an entry before writing anything for it
        return None
    return table_name, key, copy.deepcopy(current.to_json()["Attributes"]) if current else None


def make_moto_server_serial() -> None:
    make_dynamodb_atomic()
    make_moto_dispatch_cached()  # what the one lock pays per request, paid once
    make_s3_events_as_s3_sends_them()
    _serialize(DomainDispatcherApplication, "__call__")
