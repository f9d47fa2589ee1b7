"""The supplier registry in DynamoDB (template.yaml's `SupplierTable`).

    pk = SUPPLIER#<supplierId>   the supplier (name, aliases, ids, currency, profile, version);
                                 listing = "SUPPLIER", listedAt = its folded name, for the
                                 sparse `by-listing` index that `list` and name matching query
    pk = ID#<kind>:<value>       a claim: this checked id belongs to `supplierId`
    pk = PROPOSAL#<id>           a supplier a reviewer proposed (`proposals`), listing "PROPOSAL"
    pk = HISTORY#<id>#<at>#...   one change to a supplier (`history`), append-only

A claim is written with the supplier in one transaction, on the condition that no other
supplier holds it, so two suppliers can never claim one VAT id or IBAN. The profile changes
only by a conditional write on `profileVersion` (`update_profile`), so two reviews of one
supplier racing each other both land, one after the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.dynamo import transaction_condition_failed
from docflow.extract.declarations.parse import fold
from docflow.readmodel.table import from_ddb, to_ddb
from docflow.suppliers import history
from docflow.suppliers.model import Supplier
from docflow.suppliers.shapes import Profile, SupplierJson

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import (
        PutTypeDef,
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
        UpdateTypeDef,
    )

LISTING = "SUPPLIER"
LISTING_INDEX = "by-listing"
PROFILE_ATTEMPTS = 8


class ClaimConflict(ValueError):
    """An id another supplier already holds."""

    def __init__(self, key: str, holder: str, claimant: str) -> None:
        super().__init__(f"{key} already belongs to supplier {holder!r}, not {claimant!r}")
        self.key, self.holder, self.claimant = key, holder, claimant


class SupplierExists(ValueError):
    """A supplier of that id is registered already (a proposal never merges into one)."""

    def __init__(self, supplier_id: str) -> None:
        super().__init__(f"supplier {supplier_id!r} is registered already")
        self.supplier_id = supplier_id


class StaleWrite(ValueError):
    """A condition the caller added to the write no longer held (a proposal decided meanwhile)."""


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
        return [_supplier(i) for i in self.listed(LISTING)]

    def listed(self, listing: str, attributes: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The items of one listing on the sparse index, in `listedAt` order; only `attributes`
        of each (document paths, "profile.fingerprint") when it names some."""
        out: list[dict[str, Any]] = []
        args: QueryInputTypeDef = {
            "TableName": self.table,
            "IndexName": LISTING_INDEX,
            "KeyConditionExpression": "listing = :l",
            "ExpressionAttributeValues": {":l": {"S": listing}},
        }
        if attributes:
            names: dict[str, str] = {}
            paths = []
            for path in attributes:
                parts = []
                for part in path.split("."):
                    alias = names.setdefault(part, f"#p{len(names)}")
                    parts.append(alias)
                paths.append(".".join(parts))
            args["ProjectionExpression"] = ", ".join(paths)
            args["ExpressionAttributeNames"] = {alias: name for name, alias in names.items()}
        while True:
            page = self.ddb.query(**args)
            out.extend(from_ddb(i) for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return out
            args["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def history_of(self, supplier_id: str) -> list[history.Entry]:
        """Every change to the supplier, oldest first (kept after it is removed)."""
        return [history.Entry.parse(i) for i in self.listed(history.listing(supplier_id))]

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

    def put(
        self,
        supplier: Supplier,
        note: history.Entry,
        *,
        create: bool = False,
        also: Sequence[TransactWriteItemTypeDef] = (),
    ) -> None:
        """Write a supplier, its claims and its history entry `note` in one transaction (its
        profile is kept when it exists already); a claim another supplier holds refuses the
        whole write. `create`: only if no supplier has its id (SupplierExists otherwise);
        `also`: further conditional items of the same transaction (StaleWrite if one fails)."""
        old = None if create else self.get(supplier.supplier_id)
        kept = old.profile if old else supplier.profile
        version = old.profile_version if old else supplier.profile_version
        item = _item(supplier, kept, version)
        put: PutTypeDef = {"TableName": self.table, "Item": to_ddb(item)}
        if create:
            put["ConditionExpression"] = "attribute_not_exists(pk)"
        items: list[TransactWriteItemTypeDef] = [{"Put": put}]
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
        items.append(history.put_item(self.table, note))
        first_also = len(items)
        items.extend(also)
        try:
            self.ddb.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if aws.error_code(exc) != "TransactionCanceledException":
                raise
            if create and transaction_condition_failed(exc, 0):
                raise SupplierExists(supplier.supplier_id) from exc
            conflicts = self.conflicts([supplier])
            if conflicts:
                raise conflicts[0] from exc
            if any(transaction_condition_failed(exc, i) for i in range(first_also, len(items))):
                raise StaleWrite("the record changed while this command ran; run it again") from exc
            raise

    def remove(self, supplier_id: str, by: str) -> bool:
        old = self.get(supplier_id)
        if old is None:
            return False
        items: list[TransactWriteItemTypeDef] = [
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
        gone = f"{old.name}; ids {', '.join(old.keys) or 'none'}"
        items.append(
            history.put_item(self.table, history.entry(supplier_id, history.REMOVED, by, gone))
        )
        self.ddb.transact_write_items(TransactItems=items)
        return True

    def update_profile(
        self,
        supplier_id: str,
        change: Callable[[Profile], Profile | None],
        note: Callable[[Supplier], history.Entry] | None = None,
    ) -> Supplier | None:
        """Apply `change` (old profile -> new, or None for no change) by a conditional write
        on `profileVersion`, with the history entry `note` makes of the supplier after it; a
        writer that lost the race reads again and reapplies, so concurrent updates all land.
        None if the supplier is gone."""
        for _ in range(PROFILE_ATTEMPTS):
            current = self.get(supplier_id)
            if current is None:
                return None
            new = change(Profile(**current.profile))
            if new is None:
                return current
            bumped = {"profile": new, "profileVersion": current.profile_version + 1}
            after = Supplier.parse({**current.to_json(), **bumped}, stored=True)
            update: UpdateTypeDef = {
                "TableName": self.table,
                "Key": to_ddb({"pk": supplier_pk(supplier_id)}),
                "UpdateExpression": "SET profile = :p, profileVersion = :next",
                "ConditionExpression": "profileVersion = :was",
                "ExpressionAttributeValues": to_ddb(
                    {":p": new, ":next": after.profile_version, ":was": current.profile_version}
                ),
            }
            entry = note(after) if note is not None else None
            if history.write_noted(self.ddb, self.table, {"Update": update}, entry):
                return after
            # another writer's change landed first: read it and apply again
        raise RuntimeError(
            f"supplier {supplier_id}: profile kept changing under {PROFILE_ATTEMPTS} writers"
        )


class SupplierItem(SupplierJson, total=False):
    """A supplier's item in the registry: its JSON, keyed, on the listing index by name."""

    pk: str
    listing: str
    listedAt: str


def _item(supplier: Supplier, profile: Profile, version: int) -> SupplierItem:
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
    return Supplier.parse(item, stored=True)
