"""The dashboard's questions, answered by Query on the key or a sparse index. Never Scan."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypedDict, TypeVar, cast

from docflow import aws
from docflow.readmodel.detail import Loader, restore
from docflow.readmodel.items import ChildItem, DocumentState, DocumentView, HistoryItem
from docflow.readmodel.table import (
    ACTIVE_INDEX,
    ANNOUNCED_ATTRIBUTE,
    FAILED_INDEX,
    ORDERS_INDEX,
    PENDING_INDEX,
    STATE_SK,
    child_sk,
    doc_pk,
    from_ddb,
    order_pk,
    to_ddb,
)

_BATCH_GET_KEYS = 100  # BatchGetItem's most keys a request
_INTERNAL = (
    "pk",
    "sk",
    "pendingPk",
    "activePk",
    "failedPk",
    "orderPk",
    "expiresAt",
    ANNOUNCED_ATTRIBUTE,
)


# What a page lists: documents' states (pending, stuck, failed), a document's history rows, or a
# packet's parts.
ItemT = TypeVar("ItemT", DocumentState, HistoryItem, ChildItem)


class PageJson(TypedDict, Generic[ItemT]):
    """`--json` of the list commands (docs/cli.md)."""

    items: list[ItemT]
    nextToken: str | None


@dataclass(frozen=True)
class Page(Generic[ItemT]):
    items: list[ItemT]
    next_token: str | None
    items_read: int  # what DynamoDB evaluated, for the benchmark's read-cost comparison

    def to_dict(self) -> PageJson[ItemT]:
        return {"items": self.items, "nextToken": self.next_token}


def _encode(key: Mapping[str, object] | None) -> str | None:
    if not key:
        return None
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode()


def _decode(token: str | None) -> dict[str, object] | None:
    if not token:
        return None
    try:
        value = json.loads(base64.urlsafe_b64decode(token.encode()))
    except ValueError as exc:
        raise ValueError("the page token is not one this command handed out") from exc
    if not isinstance(value, dict):
        raise ValueError("the page token is not one this command handed out")
    return value


def _public(item: Mapping[str, object]) -> dict[str, object]:
    """An item without the table's keys and index attributes: what a reader is shown."""
    return {k: v for k, v in item.items() if k not in _INTERNAL}


def parse_age(text: str) -> timedelta:
    """`90s`, `15m`, `2h`, `3d` -> a timedelta."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    text = text.strip().lower()
    if len(text) < 2 or text[-1] not in units or not text[:-1].isdigit():
        raise ValueError(f"{text!r} is not an age like 90s, 15m, 2h or 3d")
    return timedelta(seconds=int(text[:-1]) * units[text[-1]])


class ReadModel:
    def __init__(self, table: str, artifact_bucket: str | None = None) -> None:
        self.table = table
        # Where reports too large for an item keep the rest (detail.py): the settings' bucket
        # unless named.
        self.artifact_bucket = artifact_bucket

    def _loader(self) -> Loader:
        from docflow.readmodel.detail_store import ReportDetails
        from docflow.settings import load_settings

        bucket = self.artifact_bucket or load_settings().artifact_bucket
        return ReportDetails(bucket).loader()

    @property
    def _ddb(self) -> Any:
        return aws.client("dynamodb")

    def _query(self, kind: type[ItemT], limit: int, token: str | None, **args: Any) -> Page[ItemT]:
        start = _decode(token)
        if start:
            args["ExclusiveStartKey"] = start
        answer = self._ddb.query(
            TableName=self.table, Limit=limit, ReturnConsumedCapacity="NONE", **args
        )
        items = [_public(from_ddb(i)) for i in answer.get("Items", [])]
        return Page(
            items=cast("list[ItemT]", items),
            next_token=_encode(answer.get("LastEvaluatedKey")),
            items_read=int(answer.get("ScannedCount", 0)),
        )

    def pending(self, limit: int = 50, token: str | None = None) -> Page[DocumentState]:
        """Documents waiting on a reviewer, longest-waiting first."""
        return self._query(
            DocumentState,
            limit,
            token,
            IndexName=PENDING_INDEX,
            KeyConditionExpression="pendingPk = :p",
            ExpressionAttributeValues=to_ddb({":p": "PENDING"}),
        )

    def stuck(
        self,
        older_than: timedelta,
        limit: int = 50,
        token: str | None = None,
        now: datetime | None = None,
    ) -> Page[DocumentState]:
        """Non-terminal documents whose last report is older than `older_than`, oldest first."""
        cutoff = ((now or datetime.now(UTC)) - older_than).isoformat(timespec="milliseconds")
        return self._query(
            DocumentState,
            limit,
            token,
            IndexName=ACTIVE_INDEX,
            KeyConditionExpression="activePk = :a AND updatedAt < :cutoff",
            ExpressionAttributeValues=to_ddb({":a": "ACTIVE", ":cutoff": cutoff}),
        )

    def finalized_orders(self, number: str, limit: int = 10) -> list[DocumentState]:
        """The finalized purchase orders with this number (a Query on the `orders` index),
        newest first; a handful at most, so one page."""
        return self._query(
            DocumentState,
            limit,
            None,
            IndexName=ORDERS_INDEX,
            KeyConditionExpression="orderPk = :o",
            ExpressionAttributeValues=to_ddb({":o": order_pk(number)}),
            ScanIndexForward=False,
        ).items

    def failed(self, limit: int = 50, token: str | None = None) -> Page[DocumentState]:
        """Failed documents, most recent first."""
        return self._query(
            DocumentState,
            limit,
            token,
            IndexName=FAILED_INDEX,
            KeyConditionExpression="failedPk = :f",
            ExpressionAttributeValues=to_ddb({":f": "FAILED"}),
            ScanIndexForward=False,
        )

    def show(self, document_id: str) -> DocumentView:
        """Current state and the full history (in run order) of one document, whole: what a
        report moved to S3 (detail.py) read back, one object per report that moved any."""
        raw = self._ddb.get_item(
            TableName=self.table,
            ConsistentRead=True,
            Key=to_ddb({"pk": doc_pk(document_id), "sk": STATE_SK}),
        )
        history: list[HistoryItem] = []
        token: str | None = None
        while True:
            page = self._query(
                HistoryItem,
                500,
                token,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :h)",
                ExpressionAttributeValues=to_ddb({":pk": doc_pk(document_id), ":h": "EVENT#"}),
                ConsistentRead=True,
            )
            history.extend(page.items)
            token = page.next_token
            if not token:
                break
        state = cast("DocumentState", _public(from_ddb(raw["Item"]))) if raw.get("Item") else None
        moved = [i.get("payload", {}) for i in history] + [state or {}]
        if any("detail" in m for m in moved):
            load = self._loader()
            state = restore(state, load) if state else None
            for item in history:
                if "detail" in item.get("payload", {}):
                    item["payload"] = restore(item["payload"], load)
        return {"state": state, "history": history}

    def children(self, document_id: str) -> list[ChildItem]:
        """A packet's parts as their runs last reported them (the recorder mirrors each part's
        state into the packet's partition): one Query, in page order."""
        items: list[ChildItem] = []
        token: str | None = None
        while True:
            page = self._query(
                ChildItem,
                500,
                token,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :c)",
                ExpressionAttributeValues=to_ddb({":pk": doc_pk(document_id), ":c": child_sk("")}),
                ConsistentRead=True,
            )
            items.extend(page.items)
            token = page.next_token
            if not token:
                break
        return sorted(items, key=lambda i: list(i.get("parentPages") or [0, 0]))

    def states(self, document_ids: Iterable[str]) -> dict[str, DocumentState | None]:
        """The current state of many documents (None for one with none yet), read with
        BatchGetItem, 100 keys a request: what a caller waiting on many documents polls,
        at a hundredth of the requests of a GetItem each."""
        wanted = list(dict.fromkeys(document_ids))
        found: dict[str, DocumentState | None] = dict.fromkeys(wanted)
        by_pk = {doc_pk(d): d for d in wanted}
        for first in range(0, len(wanted), _BATCH_GET_KEYS):
            keys = [
                to_ddb({"pk": doc_pk(d), "sk": STATE_SK})
                for d in wanted[first : first + _BATCH_GET_KEYS]
            ]
            request = {self.table: {"Keys": keys, "ConsistentRead": True}}
            while request:
                answer = self._ddb.batch_get_item(RequestItems=request)
                for raw in answer.get("Responses", {}).get(self.table, []):
                    item = from_ddb(raw)
                    found[by_pk[str(item["pk"])]] = cast("DocumentState", _public(item))
                # What DynamoDB left for later (throughput, the 16 MB bound) is asked again.
                request = answer.get("UnprocessedKeys") or {}
        return found
