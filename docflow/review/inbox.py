"""The inbox index: what waits on each reviewer, one item per (reviewer, pending stage).

The item is the reviewer's link slot for the stage (`docflow.review.links`:
`SLOT#<sha(run id#stage)>#<sha(reviewer)>`, which already holds the link's key id, nonce and
expiry), with these attributes added while the stage waits on that reviewer:

    inboxPk      "INBOX#<reviewer>"          the partition of the sparse `inbox` index
    inboxSince   "<ISO time>#<stage pk>"     its sort key: oldest first, unique per stage
    documentId, version, runId, stageIndex, stageName, docName, docType, why, deadline,
    notify ("each" or "digest")              what the inbox shows, and what re-mints the link

Written by the notifier's rounds (the stage's request goes out, or an escalation adds the
reviewer), closed (`inboxPk` removed, `inboxClosed` set) when the reviewer votes or the stage
ends (decided, timed out, superseded): each write is conditional or sets values whole, so the
durable steps and requests that make them may repeat them. A closed slot never re-enters the
index. Why the links table and not the read model: the stage's other facts (its record, its
links, its votes) live here and change in the same steps, and the read model has one writer,
the status recorder, which hears of a stage only after the fact.

Nothing stored is a working link: the inbox re-mints each review link from its slot with the
signing key (HMAC is deterministic), as the notifier does for reminders.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.readmodel.table import from_ddb, to_ddb

INBOX_INDEX = "inbox"
PAGE_SIZE = 20
EACH, DIGEST = "each", "digest"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def slot_pk(run_id: str, stage_index: int, reviewer: str) -> str:
    """One link slot (and inbox item) per (run, stage, reviewer), whichever round asks."""
    return f"SLOT#{_sha(f'{run_id}#{stage_index}')}#{_sha(reviewer)[:32]}"


def notify_mode(stage: dict[str, Any], reviewer: str) -> str:
    """How a stage's reviewer hears of it: "each" (a mail per document, reminders,
    escalations) or "digest" (one mail per period; `docflow.classify.rules` sets both keys)."""
    if stage.get("notify") == DIGEST or reviewer in stage.get("digest", []):
        return DIGEST
    return EACH


def inbox_pk(reviewer: str) -> str:
    return f"INBOX#{reviewer}"


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class InboxPage:
    items: list[dict[str, Any]]
    next_key: dict[str, Any] | None  # where the next page starts (the index's own key)
    items_read: int  # what DynamoDB evaluated: the benchmark's read cost


class InboxIndex:
    def __init__(self, table: str) -> None:
        self.table = table

    @property
    def _ddb(self) -> Any:
        return aws.client("dynamodb")

    def add(self, pk: str, reviewer: str, stage_pk: str, facts: dict[str, Any]) -> bool:
        """List the slot in the reviewer's inbox, unless it was closed before; False if so.
        `inboxSince` is kept from the first write, so a retry does not move the item."""
        values = {
            ":pk": inbox_pk(reviewer),
            ":since": f"{iso(time.time())}#{stage_pk}",
            **{f":f{i}": v for i, v in enumerate(facts.values())},
        }
        # Names through placeholders: some (version, why) may be DynamoDB reserved words.
        names = {f"#f{i}": k for i, k in enumerate(facts)}
        sets = ", ".join(f"#f{i} = :f{i}" for i in range(len(facts)))
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": pk}),
                UpdateExpression=(
                    f"SET inboxPk = :pk, inboxSince = if_not_exists(inboxSince, :since), {sets}"
                ),
                ConditionExpression="attribute_exists(pk) AND attribute_not_exists(inboxClosed)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=to_ddb(values),
            )
        except ClientError as exc:
            if aws.error_code(exc) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def close(self, run_id: str, stage_index: int, reviewers: list[str], how: str) -> None:
        """Take the stage out of these reviewers' inboxes, for good (idempotent)."""
        for reviewer in dict.fromkeys(reviewers):
            try:
                self._ddb.update_item(
                    TableName=self.table,
                    Key=to_ddb({"pk": slot_pk(run_id, stage_index, reviewer)}),
                    UpdateExpression="SET inboxClosed = if_not_exists(inboxClosed, :how) "
                    "REMOVE inboxPk",
                    # Only slots that exist: a reviewer never asked has no slot to close.
                    ConditionExpression="attribute_exists(pk)",
                    ExpressionAttributeValues=to_ddb({":how": how}),
                )
            except ClientError as exc:
                if aws.error_code(exc) != "ConditionalCheckFailedException":
                    raise

    def page(
        self,
        reviewer: str,
        start: dict[str, Any] | None = None,
        stage: str = "",
        doc_type: str = "",
        limit: int = PAGE_SIZE,
    ) -> InboxPage:
        """One page of the reviewer's pending items, oldest first: a Query on the sparse
        index (never a Scan); the filters are applied by DynamoDB after the key condition."""
        args: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": INBOX_INDEX,
            "KeyConditionExpression": "inboxPk = :p",
            "ExpressionAttributeValues": {":p": {"S": inbox_pk(reviewer)}},
            "ScanIndexForward": True,
            "Limit": limit,
        }
        filters = []
        if stage:
            filters.append("stageName = :stage")
            args["ExpressionAttributeValues"][":stage"] = {"S": stage}
        if doc_type:
            filters.append("docType = :type")
            args["ExpressionAttributeValues"][":type"] = {"S": doc_type}
        if filters:
            args["FilterExpression"] = " AND ".join(filters)
        if start:
            args["ExclusiveStartKey"] = to_ddb(start)
        items: list[dict[str, Any]] = []
        read = 0
        # A filtered page may come back short; read on until it is full or the index ends.
        while True:
            answer = self._ddb.query(**args)
            read += int(answer.get("ScannedCount", 0))
            items.extend(from_ddb(i) for i in answer.get("Items", []))
            last = answer.get("LastEvaluatedKey")
            if not last or len(items) >= limit:
                break
            args["ExclusiveStartKey"] = last
            args["Limit"] = limit - len(items)
        return InboxPage(items[:limit], from_ddb(last) if last else None, read)

    def count(self, reviewer: str) -> int:
        """How many items wait on the reviewer (a Select COUNT query on the index)."""
        total, start = 0, None
        while True:
            args: dict[str, Any] = {
                "TableName": self.table,
                "IndexName": INBOX_INDEX,
                "KeyConditionExpression": "inboxPk = :p",
                "ExpressionAttributeValues": {":p": {"S": inbox_pk(reviewer)}},
                "Select": "COUNT",
            }
            if start:
                args["ExclusiveStartKey"] = start
            answer = self._ddb.query(**args)
            total += int(answer.get("Count", 0))
            start = answer.get("LastEvaluatedKey")
            if not start:
                return total

    def records(self, pks: list[str]) -> dict[str, dict[str, Any]]:
        """Items by pk (stage records: their claims and endings), in batches of 100."""
        found: dict[str, dict[str, Any]] = {}
        unique = list(dict.fromkeys(pks))
        for i in range(0, len(unique), 100):
            keys = [to_ddb({"pk": pk}) for pk in unique[i : i + 100]]
            request = {self.table: {"Keys": keys, "ConsistentRead": True}}
            while request:
                answer = self._ddb.batch_get_item(RequestItems=request)
                for raw in answer.get("Responses", {}).get(self.table, []):
                    item = from_ddb(raw)
                    found[str(item["pk"])] = item
                request = answer.get("UnprocessedKeys") or {}
        return found
