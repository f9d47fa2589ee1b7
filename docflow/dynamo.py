"""DynamoDB for every store: item (de)serialization, and the reads and writes the stores share.

A store is a page of business rules over one table; what it asks of DynamoDB is here, once:

- `put_new`: put an item unless one with its key exists (True if this call wrote it);
- `Table.get`: a consistent read of one item;
- `Table.put` and `Table.delete`, each with an optional condition;
- `Table.update`: a conditional update that answers the item after it, and raises
  `ConditionFailed` carrying the item as it was stored when the condition did not hold
  (`ReturnValuesOnConditionCheckFailure=ALL_OLD`), so a store can say why without a second
  read (puts and deletes the same). Powertools' idempotency persistence turns a failed
  condition into a named error the same way.
- `transaction_condition_failed`: which of a cancelled transaction's conditions failed.

Clients come from `docflow.aws` (one per process, thread-safe), never made by a store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Generic, TypedDict, cast

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

# PEP 696's default on Python 3.11 (powertools depends on typing_extensions already).
from typing_extensions import TypeVar

from docflow import aws

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef

CONDITION_FAILED = "ConditionalCheckFailedException"

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()

# What a table's items are: its store names the TypedDict it writes (`Table[StageRecord]`); a
# store that names none reads plain values, which it checks before use.
ItemT = TypeVar("ItemT", bound=Mapping[str, object], default=Mapping[str, object])


class _Request(TypedDict, total=False):
    """What `Table` sends with a put, delete or update (its TableName added last)."""

    TableName: str
    Item: dict[str, AttributeValueTypeDef]
    Key: dict[str, AttributeValueTypeDef]
    UpdateExpression: str
    ReturnValues: str
    ConditionExpression: str
    ReturnValuesOnConditionCheckFailure: str
    ExpressionAttributeNames: dict[str, str]
    ExpressionAttributeValues: dict[str, AttributeValueTypeDef]


class _Answer(TypedDict, total=False):
    Attributes: dict[str, AttributeValueTypeDef]


class ConditionFailed(Exception):
    """A conditional write whose condition did not hold. `item`: the item as stored at that
    moment ({} when there was none); `Table.held` reads it as the table's item type."""

    def __init__(self, item: dict[str, object]) -> None:
        super().__init__("the condition did not hold")
        self.item = item


def to_ddb(item: Mapping[str, object]) -> dict[str, AttributeValueTypeDef]:
    # DynamoDB takes no floats; a JSON round trip turns them into Decimals.
    clean = json.loads(json.dumps(item), parse_float=Decimal)
    return {k: _serializer.serialize(v) for k, v in clean.items() if v is not None}


def from_ddb(item: Mapping[str, AttributeValueTypeDef]) -> dict[str, Any]:
    return {k: _plain(_deserializer.deserialize(v)) for k, v in item.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | set | tuple):
        return [_plain(v) for v in value]
    return value


def condition_failed(exc: Exception) -> bool:
    return aws.error_code(exc) == CONDITION_FAILED


def transaction_condition_failed(exc: ClientError, index: int) -> bool:
    """A transaction cancelled because the condition of its `index`th item did not hold."""
    reasons = exc.response.get("CancellationReasons") or []
    return (
        aws.error_code(exc) == "TransactionCanceledException"
        and len(reasons) > index
        and reasons[index].get("Code") == "ConditionalCheckFailed"
    )


def put_new(ddb: Any, table: str, item: Mapping[str, object]) -> bool:
    """Put `item` unless an item with its `pk` exists (one conditional write): True if this
    call wrote it, False if it was there already (a repeat, or a concurrent writer won)."""
    try:
        ddb.put_item(
            TableName=table, Item=to_ddb(item), ConditionExpression="attribute_not_exists(pk)"
        )
    except ClientError as exc:
        if not condition_failed(exc):
            raise
        return False
    return True


class Table(Generic[ItemT]):
    """One table, keyed by `pk` (the key may name a sort key too), holding items of one type.
    A table that holds several kinds of item is one `Table` per kind."""

    def __init__(self, name: str, client: Any = None) -> None:
        self.name, self._client = name, client

    @property
    def client(self) -> Any:
        return self._client or aws.client("dynamodb")

    def _item(self, stored: Mapping[str, AttributeValueTypeDef]) -> ItemT:
        # The one place a stored item takes its store's type: the table holds what the store
        # wrote (or updated in place), which DynamoDB does not check.
        return cast("ItemT", from_ddb(stored))

    def held(self, failed: ConditionFailed) -> ItemT | None:
        """The item as stored when a condition failed on this table; None if there was none."""
        return cast("ItemT", failed.item) if failed.item else None

    def get(self, key: Mapping[str, object]) -> ItemT | None:
        """The item, read consistently; None if there is none."""
        item = self.client.get_item(TableName=self.name, Key=to_ddb(key), ConsistentRead=True)
        found = item.get("Item")
        return self._item(found) if found else None

    def put_new(self, item: ItemT) -> bool:
        return put_new(self.client, self.name, item)

    def put(
        self,
        item: ItemT,
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, object] | None = None,
    ) -> ItemT | None:
        """Write `item` whole; the item it replaced (None if there was none). With
        `condition`, raises `ConditionFailed` carrying the stored item when the condition
        does not hold."""
        request: _Request = {"Item": to_ddb(item), "ReturnValues": "ALL_OLD"}
        answer = self._conditional("put_item", request, condition, names, values)
        return self._item(answer["Attributes"]) if answer.get("Attributes") else None

    def delete(
        self,
        key: Mapping[str, object],
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, object] | None = None,
    ) -> None:
        """Delete the item (nothing if there is none); with `condition`, raises
        `ConditionFailed` carrying the stored item when the condition does not hold."""
        self._conditional("delete_item", {"Key": to_ddb(key)}, condition, names, values)

    def _conditional(
        self,
        operation: str,
        request: _Request,
        condition: str | None,
        names: Mapping[str, str] | None,
        values: Mapping[str, object] | None,
    ) -> _Answer:
        request = {"TableName": self.name, **request}
        if condition:
            request["ConditionExpression"] = condition
            request["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        if names:
            request["ExpressionAttributeNames"] = dict(names)
        if values:
            request["ExpressionAttributeValues"] = to_ddb(values)
        try:
            answer: _Answer = getattr(self.client, operation)(**request)
        except ClientError as exc:
            if condition and condition_failed(exc):
                raise ConditionFailed(from_ddb(exc.response.get("Item") or {})) from exc
            raise
        return answer

    def update(
        self,
        key: Mapping[str, object],
        expression: str,
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, object] | None = None,
        typed_values: Mapping[str, AttributeValueTypeDef] | None = None,
    ) -> ItemT:
        """Apply `expression`; the item after it. With `condition`, raises `ConditionFailed`
        carrying the stored item when the condition does not hold. `typed_values`: values
        already in DynamoDB's types (a string set, which `to_ddb`'s JSON cannot carry)."""
        request: _Request = {
            "Key": to_ddb(key),
            "UpdateExpression": expression,
            "ReturnValues": "ALL_NEW",
        }
        if typed_values:
            # Values already typed join the others: `_conditional` types only plain ones.
            request["ExpressionAttributeValues"] = {**to_ddb(values or {}), **typed_values}
            values = None
        answer = self._conditional("update_item", request, condition, names, values)
        return self._item(answer.get("Attributes") or {})
