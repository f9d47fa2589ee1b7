"""Make moto answer a Query of a table's partition from that partition, as DynamoDB does.

moto keeps a table's items by partition key, but its Query of the base table first lists and
sorts every item of the table, then keeps those of the asked partition: a reviewer's inbox
page (20 items of one partition) cost 70 ms with 10,000 items in the inbox table, and grew
with it. Here the Query sees only the asked partition; the rest of moto's Query (key and
filter conditions, order, paging, Limit, ScannedCount) runs unchanged on it. Index queries
and tables without a sort key are left as moto answers them.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any

_PATCHED = "_docflow_one_partition"
_asked = threading.local()  # (table, its asked partition) while a Query runs on this thread


def make_queries_read_one_partition() -> None:
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.dynamodb.models.table import Table

    original_query, original_all = Table.query, Table.all_items
    if getattr(original_query, _PATCHED, False):
        return
    signature = inspect.signature(original_query)

    @functools.wraps(original_query)
    def query(self: Any, *args: Any, **kwargs: Any) -> Any:
        asked = signature.bind(self, *args, **kwargs).arguments
        if asked.get("index_name") or asked.get("hash_key") is None or not self.range_key_attr:
            return original_query(self, *args, **kwargs)
        _asked.partition = (self, self.items.get(asked["hash_key"], {}))
        try:
            return original_query(self, *args, **kwargs)
        finally:
            _asked.partition = None

    @functools.wraps(original_all)
    def all_items(self: Any) -> list[Any]:
        table, partition = getattr(_asked, "partition", None) or (None, None)
        if table is self and partition is not None:  # moto's Query sorts what it keeps itself
            return list(partition.values())
        return original_all(self)

    setattr(query, _PATCHED, True)
    Table.query = query  # type: ignore[method-assign]  # the patch itself
    Table.all_items = all_items  # type: ignore[method-assign]  # the patch itself
