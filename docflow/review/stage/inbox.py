"""The inbox: what waits on each reviewer, one item per (reviewer, pending stage).

The items live in their own table (`InboxTable`, `DOCFLOW_INBOX_TABLE`), keyed so that a
reviewer's inbox is one partition, read in sort-key order:

    pk   "INBOX#<reviewer>"
    sk   "<waiting since, ISO ms>#<stage pk>"    oldest first, unique per stage
    slotPk, documentId, version, runId, stageIndex, stageName, docName, docFolder, docType, why,
    deadline, notify ("each" or "digest")       what the inbox shows
    kid, nonce, linkExpiresAt                   the link slot's, which re-mint the review link
    expiresAt                                   the slot's: TTL, after the link has expired

A base table and not a secondary index: a Query on a partition key reads only that
partition (on DynamoDB and in moto, which walks every item of a table for an index query),
and it can be strongly consistent, so a reviewer who just voted never sees the item again.

The reviewer's link slot in the links table (`docflow.review.access.links`) anchors the item: it
keeps `inboxSk` (the item's sort key, set once, so a retried write lands on the same item)
and `inboxClosed` (set when the reviewer votes or the stage ends, never removed). Adding is a
transaction that puts the item only while the slot is not closed; closing sets `inboxClosed`
first and then deletes the item, so in any interleaving of the two a closed stage's item is
gone, and both may repeat (they run inside durable steps and requests that retry).

Nothing stored is a working link: the inbox re-mints each review link from the slot's key id,
nonce and expiry with the signing key (HMAC is deterministic), as the notifier does.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Required, TypedDict, cast

from botocore.exceptions import ClientError

from docflow import aws
from docflow.dynamo import ConditionFailed, Table, from_ddb, to_ddb, transaction_condition_failed
from docflow.review.stage.stage_record import StageRecord, as_stage_record
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef, QueryInputTypeDef

PAGE_SIZE = 20
EACH, DIGEST = "each", "digest"


class InboxItem(TypedDict, total=False):
    """One inbox item as stored (the module's docstring says what each attribute is)."""

    pk: str
    sk: str
    slotPk: str
    documentId: str
    version: str
    runId: str
    stageIndex: int
    stageName: str
    docName: str
    docFolder: str
    docType: str
    why: str
    deadline: int
    notify: str
    kid: str
    nonce: str
    linkExpiresAt: int
    expiresAt: int


class LinkSlot(TypedDict, total=False):
    """A reviewer's link slot in the links table (`docflow.review.access.links`): the link's
    key id, nonce and expiry, the mails sent with it (a string set, read back as a list),
    and the inbox item it anchors (module docstring)."""

    pk: Required[str]
    kid: str
    nonce: str
    linkExpiresAt: int
    expiresAt: int
    sent: list[str]
    inboxSk: str
    inboxClosed: str


class PageKey(TypedDict):
    """Where a page of a reviewer's inbox starts: the key of the item before it."""

    pk: str
    sk: str


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def slot_pk(run_id: str, stage_index: int, reviewer: str) -> str:
    """One link slot (and inbox item) per (run, stage, reviewer), whichever round asks."""
    return f"SLOT#{_sha(f'{run_id}#{stage_index}')}#{_sha(reviewer)[:32]}"


def notify_mode(stage: RoutedStage, reviewer: str) -> str:
    """How a stage's reviewer hears of it: "each" (a mail per document, reminders,
    escalations) or "digest" (one mail per period; `docflow.rules.model` sets both)."""
    if stage.stage.notify == DIGEST or reviewer in stage.stage.digest:
        return DIGEST
    return EACH


def inbox_pk(reviewer: str) -> str:
    return f"INBOX#{reviewer}"


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def stage_of(item: InboxItem) -> str:
    """The stage pk an inbox item stands for (the end of its sort key)."""
    return str(item.get("sk", "")).split("#", 1)[-1]


def since_of(item: InboxItem) -> str:
    """When the stage began to wait on the reviewer (the start of its sort key), ISO ms."""
    sk = str(item.get("sk", ""))
    return sk.split("#", 1)[0] if "#" in sk else ""


@dataclass(frozen=True)
class InboxPage:
    items: list[InboxItem]
    next_key: PageKey | None  # where the next page starts: {"pk", "sk"} of the last item
    items_read: int  # what DynamoDB evaluated: the benchmark's read cost


class InboxIndex:
    """The reviewers' inbox items (`inbox_table`), anchored on their link slots (`links_table`).

    `inbox_table` defaults to the settings' (`DOCFLOW_INBOX_TABLE`): the stores that close a
    stage's items know only the links table."""

    def __init__(self, links_table: str, inbox_table: str | None = None) -> None:
        self.links_table = links_table
        self.table = inbox_table if inbox_table is not None else load_settings().inbox_table

    @property
    def _ddb(self) -> Any:
        return aws.client("dynamodb")

    def add(self, slot: str, reviewer: str, stage_pk: str, facts: Mapping[str, object]) -> bool:
        """List the stage in the reviewer's inbox, unless its slot was closed; False if so.
        The sort key is the slot's `inboxSk`, fixed by the first write, so a retry (or a later
        round) puts the same item again, with this round's facts."""
        anchor = self._anchor(slot, stage_pk)
        if anchor is None:
            return False
        item: dict[str, object] = {
            **facts,
            "pk": inbox_pk(reviewer),
            "sk": str(anchor["inboxSk"]),
            "slotPk": slot,
            "kid": anchor["kid"],
            "nonce": anchor["nonce"],
            "linkExpiresAt": anchor["linkExpiresAt"],
            "expiresAt": anchor.get("expiresAt") or int(anchor["linkExpiresAt"]),
        }
        return self._put_while_open(slot, item)

    def _anchor(self, slot: str, stage_pk: str) -> LinkSlot | None:
        """The open slot, its `inboxSk` set if it had none; None when the slot is closed."""
        try:
            return Table[LinkSlot](self.links_table).update(
                {"pk": slot},
                "SET inboxSk = if_not_exists(inboxSk, :sk)",
                condition="attribute_exists(pk) AND attribute_not_exists(inboxClosed)",
                values={":sk": f"{iso(time.time())}#{stage_pk}"},
            )
        except ConditionFailed:
            return None

    def _put_while_open(self, slot: str, item: Mapping[str, object]) -> bool:
        """Put the item only while the slot is open: a close that came after `_anchor` wins."""
        try:
            self._ddb.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self.links_table,
                            "Key": to_ddb({"pk": slot}),
                            "ConditionExpression": "attribute_not_exists(inboxClosed)",
                        }
                    },
                    {"Put": {"TableName": self.table, "Item": to_ddb(item)}},
                ]
            )
        except ClientError as exc:
            if transaction_condition_failed(exc, 0):
                return False
            raise
        return True

    def close(self, run_id: str, stage_index: int, reviewers: list[str], how: str) -> None:
        """Take the stage out of these reviewers' inboxes, for good (idempotent): the slot is
        marked closed first, so no later `add` can list it again, then the item goes."""
        for reviewer in dict.fromkeys(reviewers):
            try:
                closed = Table[LinkSlot](self.links_table).update(
                    {"pk": slot_pk(run_id, stage_index, reviewer)},
                    "SET inboxClosed = if_not_exists(inboxClosed, :how)",
                    # Only slots that exist: a reviewer never asked has no slot to close.
                    condition="attribute_exists(pk)",
                    values={":how": how},
                )
            except ConditionFailed:
                continue
            sk = closed.get("inboxSk")
            if sk:  # never listed (the reviewer had voted before their round) otherwise
                Table(self.table).delete({"pk": inbox_pk(reviewer), "sk": str(sk)})

    def page(
        self,
        reviewer: str,
        start: PageKey | None = None,
        stage: str = "",
        doc_type: str = "",
        limit: int = PAGE_SIZE,
    ) -> InboxPage:
        """One page of the reviewer's pending items, oldest first: a strongly consistent Query
        of the reviewer's partition (never a Scan); DynamoDB applies the filters after it."""
        values: dict[str, AttributeValueTypeDef] = {":p": {"S": inbox_pk(reviewer)}}
        args: QueryInputTypeDef = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": values,
            "ScanIndexForward": True,
            "ConsistentRead": True,
            "Limit": limit,
        }
        filters = []
        if stage:
            filters.append("stageName = :stage")
            values[":stage"] = {"S": stage}
        if doc_type:
            filters.append("docType = :type")
            values[":type"] = {"S": doc_type}
        if filters:
            args["FilterExpression"] = " AND ".join(filters)
        if start:
            args["ExclusiveStartKey"] = to_ddb(start)
        items: list[InboxItem] = []
        read = 0
        # A filtered page may come back short; read on until it is full or the partition ends.
        while True:
            answer = self._ddb.query(**args)
            read += int(answer.get("ScannedCount", 0))
            items.extend(cast("InboxItem", from_ddb(i)) for i in answer.get("Items", []))
            last = answer.get("LastEvaluatedKey")
            if not last or len(items) >= limit:
                break
            args["ExclusiveStartKey"] = last
            args["Limit"] = limit - len(items)
        next_key = cast("PageKey", from_ddb(last)) if last else None
        return InboxPage(items[:limit], next_key, read)

    def count(self, reviewer: str) -> int:
        """How many items wait on the reviewer (a Select COUNT query of their partition)."""
        total, start = 0, None
        while True:
            args: QueryInputTypeDef = {
                "TableName": self.table,
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": inbox_pk(reviewer)}},
                "Select": "COUNT",
                "ConsistentRead": True,
            }
            if start:
                args["ExclusiveStartKey"] = start
            answer = self._ddb.query(**args)
            total += int(answer.get("Count", 0))
            start = answer.get("LastEvaluatedKey")
            if not start:
                return total

    def records(self, pks: list[str]) -> dict[str, StageRecord]:
        """Links-table items by pk (stage records: who is looking, and endings), 100 a batch."""
        found: dict[str, StageRecord] = {}
        unique = list(dict.fromkeys(pks))
        for i in range(0, len(unique), 100):
            keys = [to_ddb({"pk": pk}) for pk in unique[i : i + 100]]
            request = {self.links_table: {"Keys": keys, "ConsistentRead": True}}
            while request:
                answer = self._ddb.batch_get_item(RequestItems=request)
                for raw in answer.get("Responses", {}).get(self.links_table, []):
                    item = as_stage_record(from_ddb(raw))
                    found[str(item["pk"])] = item
                request = answer.get("UnprocessedKeys") or {}
        return found
