"""The supplier registry in DynamoDB (template.yaml's `SupplierTable`).

    pk = SUPPLIER#<supplierId>   the supplier (name, aliases, ids, currency, profile, version);
                                 listing = "SUPPLIER", listedAt = its folded name, for the
                                 sparse `by-listing` index that `list` and name matching query
    pk = ID#<kind>:<value>       a claim: this checked id belongs to `supplierId`

A claim is written with the supplier in one transaction, on the condition that no other
supplier holds it, so two suppliers can never claim one VAT id or IBAN. The profile changes
only by a conditional write on `profileVersion` (`update_profile`), so two reviews of one
supplier racing each other both land, one after the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.dynamo import ConditionFailed, Table
from docflow.extract.parse import fold
from docflow.readmodel.table import from_ddb, to_ddb
from docflow.suppliers.model import Supplier

LISTING = "SUPPLIER"
LISTING_INDEX = "by-listing"
PROFILE_ATTEMPTS = 8


class ClaimConflict(ValueError):
    """An id another supplier already holds."""

    def __init__(self, key: str, holder: str, claimant: str) -> None:
        super().__init__(f"{key} already belongs to supplier {holder!r}, not {claimant!r}")
        self.key, self.holder, self.claimant = key, holder, claimant


def supplier_pk(supplier_id: str) -> str:
    return f"SUPPLIER#{supplier_id}"


def claim_pk(key: str) -> str:
    return f"ID#{key}"


class SupplierStore:
    def __init__(self, table: str, ddb: Any = None) -> None:
        self.table = table
        self.ddb = ddb or aws.client("dynamodb")

    def get(self, supplier_id: str) -> Supplier | None:
        got = self.ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": supplier_pk(supplier_id)}), ConsistentRead=True
        ).get("Item")
        return _supplier(from_ddb(got)) if got else None

    def holder(self, key: str) -> str | None:
        """The supplier id that claims `kind:value`, if any."""
        got = self.ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": claim_pk(key)}), ConsistentRead=True
        ).get("Item")
        return str(from_ddb(got)["supplierId"]) if got else None

    def by_key(self, key: str) -> Supplier | None:
        holder = self.holder(key)
        return self.get(holder) if holder else None

    def all(self) -> list[Supplier]:
        """Every supplier, by name (a Query on the sparse index, never a Scan)."""
        out: list[Supplier] = []
        args: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": LISTING_INDEX,
            "KeyConditionExpression": "listing = :l",
            "ExpressionAttributeValues": {":l": {"S": LISTING}},
        }
        while True:
            page = self.ddb.query(**args)
            out.extend(_supplier(from_ddb(i)) for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return out
            args["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def conflicts(self, suppliers: Sequence[Supplier]) -> list[ClaimConflict]:
        """Ids that other suppliers hold already, or that two of `suppliers` both claim."""
        seen: dict[str, str] = {}
        found: list[ClaimConflict] = []
        for supplier in suppliers:
            for key in supplier.keys:
                other = seen.setdefault(key, supplier.supplier_id)
                if other != supplier.supplier_id:
                    found.append(ClaimConflict(key, other, supplier.supplier_id))
                    continue
                holder = self.holder(key)
                if holder and holder != supplier.supplier_id:
                    found.append(ClaimConflict(key, holder, supplier.supplier_id))
        return found

    def put(self, supplier: Supplier) -> None:
        """Write a supplier and its claims in one transaction (its profile is kept when it
        exists already); a claim another supplier holds refuses the whole write."""
        old = self.get(supplier.supplier_id)
        kept = old.profile if old else supplier.profile
        version = old.profile_version if old else supplier.profile_version
        item = _item(supplier, kept, version)
        items: list[dict[str, Any]] = [{"Put": {"TableName": self.table, "Item": to_ddb(item)}}]
        for key in supplier.keys:
            items.append(
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": to_ddb({"pk": claim_pk(key), "supplierId": supplier.supplier_id}),
                        "ConditionExpression": "attribute_not_exists(pk) OR supplierId = :me",
                        "ExpressionAttributeValues": {":me": {"S": supplier.supplier_id}},
                    }
                }
            )
        # Ids the supplier no longer lists are released.
        for key in sorted(set(old.keys if old else ()) - set(supplier.keys)):
            items.append(
                {"Delete": {"TableName": self.table, "Key": to_ddb({"pk": claim_pk(key)})}}
            )
        try:
            self.ddb.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if aws.error_code(exc) != "TransactionCanceledException":
                raise
            conflicts = self.conflicts([supplier])
            if conflicts:
                raise conflicts[0] from exc
            raise

    def remove(self, supplier_id: str) -> bool:
        old = self.get(supplier_id)
        if old is None:
            return False
        items = [
            {"Delete": {"TableName": self.table, "Key": to_ddb({"pk": supplier_pk(supplier_id)})}}
        ]
        items += [
            {
                "Delete": {
                    "TableName": self.table,
                    "Key": to_ddb({"pk": claim_pk(key)}),
                    "ConditionExpression": "supplierId = :me",
                    "ExpressionAttributeValues": {":me": {"S": supplier_id}},
                }
            }
            for key in old.keys
        ]
        self.ddb.transact_write_items(TransactItems=items)
        return True

    def update_profile(
        self, supplier_id: str, change: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> Supplier | None:
        """Apply `change` (old profile -> new, or None for no change) by a conditional write
        on `profileVersion`; a writer that lost the race reads again and reapplies, so
        concurrent updates all land. None if the supplier is gone."""
        for _ in range(PROFILE_ATTEMPTS):
            current = self.get(supplier_id)
            if current is None:
                return None
            new = change(dict(current.profile))
            if new is None:
                return current
            try:
                Table(self.table, self.ddb).update(
                    {"pk": supplier_pk(supplier_id)},
                    "SET profile = :p, profileVersion = :next",
                    condition="profileVersion = :was",
                    values={
                        ":p": new,
                        ":next": current.profile_version + 1,
                        ":was": current.profile_version,
                    },
                )
            except ConditionFailed:
                continue  # another writer's change landed first: read it and apply again
            return Supplier.parse(
                {**current.to_json(), "profile": new, "profileVersion": current.profile_version + 1}
            )
        raise RuntimeError(
            f"supplier {supplier_id}: profile kept changing under {PROFILE_ATTEMPTS} writers"
        )


def _item(supplier: Supplier, profile: dict[str, Any], version: int) -> dict[str, Any]:
    body = supplier.to_json()
    return {
        "pk": supplier_pk(supplier.supplier_id),
        **body,
        "profile": profile,
        "profileVersion": version,
        "listing": LISTING,
        "listedAt": f"{fold(supplier.name)}#{supplier.supplier_id}",
    }


def _supplier(item: dict[str, Any]) -> Supplier:
    return Supplier.parse(item)
