"""The read model's single table: key layout, sparse indexes and (de)serialization.

    pk = DOC#<documentId>   sk = STATE                                  current state
    pk = DOC#<documentId>   sk = EVENT#<runOrder>#<seq>#<eventId>       history, in run order

Sparse global secondary indexes hold only the items a dashboard question is about:
    pending  (pendingPk = "PENDING", pendingSince)  documents waiting on a reviewer
    active   (activePk  = "ACTIVE",  updatedAt)     non-terminal documents, oldest first
    failed   (failedPk  = "FAILED",  failedAt)      failed documents
    orders   (orderPk   = "ORDER#<number>", updatedAt)  finalized purchase orders by their
                                                    number, for the invoices that cite them
The table itself is declared once, in template.yaml; `docflow.local.resources` creates it from
there for the local stack and the tests.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from docflow import aws

STATE_SK = "STATE"
PENDING_INDEX = "pending"
ACTIVE_INDEX = "active"
FAILED_INDEX = "failed"
ORDERS_INDEX = "orders"
TTL_ATTRIBUTE = "expiresAt"

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def doc_pk(document_id: str) -> str:
    return f"DOC#{document_id}"


def order_pk(number: str) -> str:
    """The `orders` index key of a purchase order's number: upper case, no spaces, so
    `po 4711` and `PO4711` are one order."""
    return "ORDER#" + "".join(number.split()).upper()


def history_sk(run_order: str, seq: int, event_id: str) -> str:
    return f"EVENT#{run_order}#{seq:07d}#{event_id}"


def to_ddb(item: dict[str, Any]) -> dict[str, Any]:
    # DynamoDB takes no floats; a JSON round trip turns them into Decimals.
    clean = json.loads(json.dumps(item), parse_float=Decimal)
    return {k: _serializer.serialize(v) for k, v in clean.items() if v is not None}


def put_new(ddb: Any, table: str, item: dict[str, Any]) -> bool:
    """Put `item` unless an item with its `pk` exists (one conditional write): True if this
    call wrote it, False if it was there already (a repeat, or a concurrent writer won)."""
    try:
        ddb.put_item(
            TableName=table, Item=to_ddb(item), ConditionExpression="attribute_not_exists(pk)"
        )
    except ClientError as exc:
        if aws.error_code(exc) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def from_ddb(item: dict[str, Any]) -> dict[str, Any]:
    return {k: _plain(_deserializer.deserialize(v)) for k, v in item.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | set | tuple):
        return [_plain(v) for v in value]
    return value
