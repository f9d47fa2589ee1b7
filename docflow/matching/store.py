"""The order store: template.yaml's `OrderTable` (docs/matching.md "Where the orders live").

Every write is conditional, so a step that runs again (a retry, a replay after a crash) repeats
nothing, and two runs that race decide by DynamoDB, not by who read first:

- an order is written by its own run after it is reviewed; a late older version of the same
  document never overwrites a newer one, and its balance counters are only ever added to;
- a waiting invoice is put once per (run, kind, round) with its callback id;
- a bill takes its share of the order in one transaction: its own item (put only where no
  bill of this document is, or where the one there is the version it replaces) and the
  order's counters, updated only if none goes past its bound (`Bounds`), so two invoices
  racing for the last of an order cannot both take it;
- a wake is marked once (`woken`), so an order finalized twice wakes each invoice once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.dynamo import ConditionFailed, Table, from_ddb, to_ddb
from docflow.matching.keys import OrderKey
from docflow.matching.records import (
    BILL,
    BILLED,
    ORDER_SK,
    RELEASED,
    RESERVED,
    BillRecord,
    OrderFile,
    OrderRecord,
    ReceiptRecord,
    Waiter,
    qty_attribute,
)
from docflow.matching.verdict import Bounds

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef, QueryInputTypeDef

BY_NUMBER = "by-number"


def _n(value: Decimal) -> AttributeValueTypeDef:
    """A number in DynamoDB's own type: exact, never through a float."""
    return {"N": str(value)}


class OrderStore:
    def __init__(self, table: str) -> None:
        self.table = Table(table)

    @property
    def name(self) -> str:
        return self.table.name

    # ------------------------------------------------------------------ reading

    def read(self, key: OrderKey) -> OrderFile:
        """The order's partition, read consistently, whole."""
        # Four kinds of item by their sort key: `OrderFile.parse` reads each by its own.
        items: list[Mapping[str, object]] = []
        request: QueryInputTypeDef = {
            "TableName": self.name,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": to_ddb({":pk": key.pk}),
            "ConsistentRead": True,
        }
        while True:
            answer = self.table.client.query(**request)
            items.extend(from_ddb(i) for i in answer.get("Items", []))
            if not answer.get("LastEvaluatedKey"):
                return OrderFile.parse(items)
            request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]

    def numbered(self, number: str) -> list[OrderKey]:
        """Every supplier's order of this number (normal form), from the by-number index."""
        answer = self.table.client.query(
            TableName=self.name,
            IndexName=BY_NUMBER,
            KeyConditionExpression="orderNumber = :n",
            ExpressionAttributeValues=to_ddb({":n": number}),
        )
        found = [from_ddb(i) for i in answer.get("Items", [])]
        return [
            OrderKey(str(i["supplier"]), str(i["number"]), str(i.get("printed", ""))) for i in found
        ]

    # ------------------------------------------------------------ orders, receipts

    def put_order(self, order: OrderRecord) -> bool:
        """Write the order as this version says it (its balance kept); False when a newer
        version of the same document is there already."""
        item = {k: v for k, v in order.item().items() if k not in ("pk", "sk") and v is not None}
        names = {f"#a{i}": name for i, name in enumerate(item)}
        values = {f":a{i}": value for i, value in enumerate(item.values())}
        sets = [f"#a{i} = :a{i}" for i in range(len(item))]
        sets.append("billed = if_not_exists(billed, :zero)")
        for line in order.lines:  # every line's counter exists, so a condition can read it
            counter = qty_attribute(line.number)
            sets.append(f"{counter} = if_not_exists({counter}, :zero)")
        try:
            self.table.update(
                {"pk": order.key.pk, "sk": ORDER_SK},
                "SET " + ", ".join(sets),
                condition="attribute_not_exists(runOrder) OR documentId <> :doc OR runOrder <= :ro",
                names=names,
                values={**values, ":doc": order.document_id, ":ro": order.run_order},
                typed_values={":zero": _n(Decimal(0))},
            )
        except ConditionFailed:
            return False
        return True

    def put_receipt(self, key: OrderKey, receipt: ReceiptRecord) -> bool:
        try:
            self.table.put(
                receipt.item(key),
                condition="attribute_not_exists(pk) OR runOrder <= :ro",
                values={":ro": receipt.run_order},
            )
        except ConditionFailed:
            return False
        return True

    # ------------------------------------------------------------------ waiting

    def add_waiter(self, key: OrderKey, waiter: Waiter) -> None:
        """List an invoice's callback under the order (the same callback again is no error)."""
        try:
            self.table.put(
                waiter.item(key),
                condition="attribute_not_exists(pk) OR callbackId = :cb",
                values={":cb": waiter.callback_id},
            )
        except ConditionFailed as exc:
            raise ValueError(f"another callback waits as {waiter.sk}") from exc

    def mark_woken(self, key: OrderKey, waiter: Waiter, by: str) -> bool:
        """True if this call marked it; False if it was marked already."""
        try:
            self.table.update(
                {"pk": key.pk, "sk": waiter.sk},
                "SET woken = :t, wokenBy = :by",
                condition="attribute_exists(pk) AND attribute_not_exists(woken)",
                values={":t": True, ":by": by},
            )
        except ConditionFailed:
            return False
        return True

    # ------------------------------------------------------------------ bills

    def take(
        self,
        key: OrderKey,
        bill: BillRecord,
        previous: BillRecord | None,
        amount: Bounds,
        lines: Mapping[int, Bounds],
    ) -> bool:
        """The bill's share of the order in one transaction, within `amount` and `lines`
        (the counters' bounds after it; empty bounds: an override, unbounded). False when a
        condition did not hold (another bill came first, or the previous one changed)."""
        before = previous.amount if previous and previous.counts else Decimal(0)
        delta = bill.amount - before
        quantities = dict(bill.quantities)
        gone = previous.quantities if previous and previous.counts else {}
        changes = {
            n: quantities.get(n, Decimal(0)) - gone.get(n, Decimal(0)) for n in {*quantities, *gone}
        }
        sets = ["billed = billed + :d"]
        conditions = ["attribute_exists(runOrder)"]
        values: dict[str, AttributeValueTypeDef] = {":d": _n(delta), ":zero": _n(Decimal(0))}
        if amount.limit is not None:
            conditions.append("billed <= :limit")
            values[":limit"] = _n(amount.limit - delta)
        if amount.floor is not None:
            conditions.append("billed >= :floor")
            values[":floor"] = _n(amount.floor - delta)
        for number, change in sorted(changes.items()):
            counter = qty_attribute(number)
            sets.append(f"{counter} = if_not_exists({counter}, :zero) + :q{number}")
            values[f":q{number}"] = _n(change)
            bound = lines.get(number, Bounds())
            if bound.limit is not None:
                conditions.append(f"(attribute_not_exists({counter}) OR {counter} <= :l{number})")
                values[f":l{number}"] = _n(bound.limit - change)
            if bound.floor is not None:
                conditions.append(f"{counter} >= :f{number}")
                values[f":f{number}"] = _n(bound.floor - change)
        if previous is None:
            own, own_values = "attribute_not_exists(pk)", {}
        else:
            own = "runOrder = :pro AND #state = :pstate"
            own_values = {":pro": previous.run_order, ":pstate": previous.state}
        request = [
            {
                "Put": {
                    "TableName": self.name,
                    "Item": to_ddb(bill.item(key)),
                    "ConditionExpression": own,
                    **({"ExpressionAttributeNames": {"#state": "state"}} if previous else {}),
                    **({"ExpressionAttributeValues": to_ddb(own_values)} if own_values else {}),
                }
            },
            {
                "Update": {
                    "TableName": self.name,
                    "Key": to_ddb({"pk": key.pk, "sk": ORDER_SK}),
                    "UpdateExpression": "SET " + ", ".join(sets),
                    "ConditionExpression": " AND ".join(conditions),
                    "ExpressionAttributeValues": values,
                }
            },
        ]
        return self._transact(request)

    def settle(self, key: OrderKey, bill: BillRecord, overridden_by: str = "") -> bool:
        """A reserved bill becomes billed (its invoice finalized); False if it was not this
        run's reserved bill any more (settled already, or replaced by a newer version)."""
        who = {":who": overridden_by} if overridden_by else {}
        try:
            self.table.update(
                {"pk": key.pk, "sk": BILL + bill.document_id},
                "SET #state = :billed" + (", overriddenBy = :who" if who else ""),
                condition="runOrder = :ro AND #state IN (:reserved, :billed)",
                names={"#state": "state"},
                values={":billed": BILLED, ":reserved": RESERVED, ":ro": bill.run_order, **who},
            )
        except ConditionFailed:
            return False
        return True

    def release(self, key: OrderKey, bill: BillRecord) -> bool:
        """A reserved bill gives its share back (its invoice was archived); False if there was
        nothing of this run's to give back (released already, or never reserved)."""
        sets = ["billed = billed - :d"]
        values: dict[str, AttributeValueTypeDef] = {":d": _n(bill.amount)}
        for number, qty in sorted(bill.quantities.items()):
            sets.append(f"{qty_attribute(number)} = {qty_attribute(number)} - :q{number}")
            values[f":q{number}"] = _n(qty)
        request = [
            {
                "Update": {
                    "TableName": self.name,
                    "Key": to_ddb({"pk": key.pk, "sk": BILL + bill.document_id}),
                    "UpdateExpression": "SET #state = :released",
                    "ConditionExpression": "runOrder = :ro AND #state = :reserved",
                    "ExpressionAttributeNames": {"#state": "state"},
                    "ExpressionAttributeValues": to_ddb(
                        {":released": RELEASED, ":reserved": RESERVED, ":ro": bill.run_order}
                    ),
                }
            },
            {
                "Update": {
                    "TableName": self.name,
                    "Key": to_ddb({"pk": key.pk, "sk": ORDER_SK}),
                    "UpdateExpression": "SET " + ", ".join(sets),
                    "ExpressionAttributeValues": values,
                }
            },
        ]
        return self._transact(request)

    def _transact(self, items: Iterable[Any]) -> bool:
        try:
            aws.client("dynamodb").transact_write_items(TransactItems=list(items))
        except ClientError as exc:
            reasons = exc.response.get("CancellationReasons") or []
            if aws.error_code(exc) == "TransactionCanceledException" and any(
                r.get("Code") == "ConditionalCheckFailed" for r in reasons
            ):
                return False
            raise
        return True
