"""The counts of a pile of known size, kept on its item (`pile#<name>`) in the pool table.

`expected` is set from the manifest (never added to: a manifest read twice does not double
it); `registered` counts the records that reached the pool and `withdrawn` the documents that
ended before they could (a file that could not be read), each written in one transaction with
the item that makes it count once per run: the record itself, or a `gone#<run id>` marker, each
conditional on being new, so a redelivered document or a re-run step never counts twice.
A pile is complete when registered + withdrawn reach the expectation.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from docflow.dynamo import to_ddb, transaction_condition_failed
from docflow.piles.manifest import PileManifest
from docflow.piles.shapes import PileItem, RecordItem

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef


def _count(table: str, pile_key: str, pile: PileManifest, field: str) -> TransactWriteItemTypeDef:
    now = datetime.now(UTC).isoformat(timespec="microseconds")
    return {
        "Update": {
            "TableName": table,
            "Key": to_ddb({"pk": pile_key}),
            "UpdateExpression": "SET kind = :k, pile = :p, expected = :e, "
            f"firstAt = if_not_exists(firstAt, :now) ADD {field} :one",
            "ExpressionAttributeValues": to_ddb(
                {":k": "pile", ":p": pile.pile, ":e": pile.expected, ":now": now, ":one": 1}
            ),
        }
    }


def _new(table: str, item: Mapping[str, object]) -> TransactWriteItemTypeDef:
    return {
        "Put": {
            "TableName": table,
            "Item": to_ddb(item),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }


def _transact(ddb: Any, items: list[TransactWriteItemTypeDef]) -> bool:
    """True if written; False if a condition failed (the run was counted before)."""
    try:
        ddb.transact_write_items(TransactItems=items)
    except ClientError as exc:
        if not any(transaction_condition_failed(exc, i) for i in range(len(items))):
            raise  # a conflict with a concurrent transaction: the step retries
        return False
    return True


def register(ddb: Any, table: str, record: RecordItem, pile_key: str, pile: PileManifest) -> bool:
    """The record and its pile's count, both or (the record was there) neither."""
    return _transact(ddb, [_new(table, record), _count(table, pile_key, pile, "registered")])


def withdraw(
    ddb: Any, table: str, record_key: str, gone_key: str, pile_key: str, pile: PileManifest
) -> bool:
    """Count a run that will never register: once, and never one that did register."""
    return _transact(
        ddb,
        [
            {
                "ConditionCheck": {
                    "TableName": table,
                    "Key": to_ddb({"pk": record_key}),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            _new(table, {"pk": gone_key, "kind": "gone", "pile": pile.pile}),
            _count(table, pile_key, pile, "withdrawn"),
        ],
    )


def complete(item: PileItem | None) -> bool:
    """Whether every document the pile expects is in the pool or withdrawn."""
    if not item or not item.get("expected"):
        return False
    arrived = int(item.get("registered", 0)) + int(item.get("withdrawn", 0))
    return arrived >= int(item["expected"])
