"""Leases in the pool table: one holder at a time, taken by a conditional put.

A lease is an item (`lease#<what>`) naming its holder and until when it holds. Taking it
succeeds when nobody holds it, the holder's time is over, or the taker already holds it (a
retried step takes back its own lease). Two are used: `lease#pool-wait` (the one batcher that
waits for a small pool to fill) and `lease#claim` (the one batcher claiming records).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.readmodel.table import to_ddb


def take(ddb: Any, table: str, pk: str, holder: str, until_epoch: int) -> bool:
    """Hold `pk` until `until_epoch` (seconds); False while another holds it."""
    now = int(datetime.now(UTC).timestamp())
    try:
        ddb.put_item(
            TableName=table,
            Item=to_ddb(
                {
                    "pk": pk,
                    "holder": holder,
                    "until": until_epoch,
                    "expiresAt": until_epoch + 86_400,
                }
            ),
            ConditionExpression="attribute_not_exists(pk) OR #u < :now OR holder = :me",
            ExpressionAttributeNames={"#u": "until"},
            ExpressionAttributeValues=to_ddb({":now": now, ":me": holder}),
        )
    except ClientError as exc:
        if aws.error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def drop(ddb: Any, table: str, pk: str, holder: str) -> None:
    """Give `pk` up, if `holder` still holds it (a lapsed lease another took stays theirs)."""
    try:
        ddb.delete_item(
            TableName=table,
            Key=to_ddb({"pk": pk}),
            ConditionExpression="holder = :me",
            ExpressionAttributeValues=to_ddb({":me": holder}),
        )
    except ClientError as exc:
        if aws.error_code(exc) != "ConditionalCheckFailedException":
            raise
