"""Layouts: reading is learned per layout, paying is governed per supplier.

A layout is what the reviews of one kind of page taught: its fingerprint (the lines its pages
print every time, `fingerprint.py`), its profile (where each field is printed, how far each is
trusted: `profile.py`, `trust.py`), the document type and language its reviews approved, and
the issuer's name people confirmed (the `vendor_name` entry's constant). It needs no registered
supplier: the registry (four eyes) decides whom docflow may pay, never whether it may read. A
layout taught while a checked id or a registered IBAN named a registered supplier keeps that
supplier's id (`supplierId`), so a page of it that also prints the supplier's name is that
supplier's for reading, as a checked id would be (`match.py`); nothing else links the two.

    pk = LAYOUT#<layoutId>   listing = "LAYOUT", listedAt = layoutId (the sparse `by-listing`
                             index the extract step and `docflow suppliers layouts` query)
      layoutId, issuer, supplierId, docType, language, profile, version

A layout's id comes from the run of the review that first taught it (`new_id`): the learn step
run twice makes one layout. Every change is a conditional write on `version` with a history
entry in the same transaction (`HISTORY#<layoutId>#...`, as a supplier's): a writer that lost
the race reads again and reapplies, so two reviews of one layout at once both land. Layout ids
start with `L-`: a supplier id is lower case, so the two never share a history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from docflow import aws
from docflow.readmodel.table import from_ddb, to_ddb
from docflow.suppliers import fingerprint as fingerprints
from docflow.suppliers import history
from docflow.suppliers.shapes import LayoutJson, Profile
from docflow.suppliers.store import SupplierStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

LISTING = "LAYOUT"
# What matching reads of a layout (`LayoutStore.outlines`).
OUTLINE = (
    "layoutId",
    "supplierId",
    "docType",
    "language",
    "version",
    "profile.fingerprint",
    "profile.fields.vendor_name",
)
ATTEMPTS = 8
PREFIX = "L-"


def layout_pk(layout_id: str) -> str:
    return f"LAYOUT#{layout_id}"


def new_id(run_id: str) -> str:
    """A new layout's id, from the run of the review that taught it first."""
    return PREFIX + hashlib.sha256(f"layout#{run_id}".encode()).hexdigest()[:12]


def is_layout_id(value: str) -> bool:
    return value.startswith(PREFIX) and len(value) == len(PREFIX) + 12


@dataclass(frozen=True)
class Layout:
    layout_id: str
    profile: Profile = field(default_factory=Profile)
    version: int = 0
    supplier_id: str = ""
    doc_type: str = ""
    language: str = ""

    @property
    def issuer(self) -> str:
        """The issuer's name people confirmed for this layout ("" when none yet)."""
        entry = (self.profile.get("fields") or {}).get("vendor_name") or {}
        return str(entry.get("value") or "")

    @property
    def fingerprint(self) -> list[fingerprints.Line]:
        return fingerprints.fingerprint_of(self.profile.get("fingerprint"))

    def to_json(self) -> LayoutJson:
        return {
            "layoutId": self.layout_id,
            "issuer": self.issuer or None,
            "supplierId": self.supplier_id or None,
            "docType": self.doc_type,
            "language": self.language,
            "profile": self.profile,
            "version": self.version,
        }

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Layout:
        return cls(
            str(raw["layoutId"]),
            cast("Profile", dict(raw.get("profile") or {})),
            int(raw.get("version") or 0),
            str(raw.get("supplierId") or ""),
            str(raw.get("docType") or ""),
            str(raw.get("language") or ""),
        )


class LayoutStore:
    """The layout items in the supplier registry's table."""

    def __init__(self, table: str, ddb: Any = None) -> None:
        self.table = table
        self.ddb = ddb or aws.client("dynamodb")

    def all(self) -> list[Layout]:
        """Every layout (a Query on the sparse index, never a Scan)."""
        return [Layout.parse(i) for i in SupplierStore(self.table, self.ddb).listed(LISTING)]

    def outlines(self) -> list[Layout]:
        """Every layout as matching a page reads it (`match.match_layout`): its fingerprint,
        issuer, supplier and type, without the profile's fields, which are most of a layout's
        bytes and were read for every layout on every document. Never read a profile from
        one: `match.find_layout` reads the one that matched whole."""
        found = SupplierStore(self.table, self.ddb).listed(LISTING, OUTLINE)
        return [Layout.parse(i) for i in found]

    def get(self, layout_id: str) -> Layout | None:
        got = self.ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": layout_pk(layout_id)}), ConsistentRead=True
        ).get("Item")
        return Layout.parse(from_ddb(got)) if got else None

    def change(
        self,
        layout_id: str,
        apply: Callable[[Layout], Layout | None],
        note: Callable[[Layout], history.Entry] | None = None,
    ) -> Layout:
        """Apply `apply` (the layout as stored, or a new empty one -> the new layout, or None
        for no change) by a conditional write on `version`, with the history entry `note`
        makes of the layout after it; the layout after the change."""
        for _ in range(ATTEMPTS):
            current = self.get(layout_id) or Layout(layout_id)
            new = apply(current)
            if new is None:
                return current
            after = replace(new, layout_id=layout_id, version=current.version + 1)
            item = {
                k: v for k, v in after.to_json().items() if k not in ("layoutId",) and v is not None
            }
            item |= {"layoutId": layout_id, "listing": LISTING, "listedAt": layout_id}
            names = {f"#a{i}": k for i, k in enumerate(item)}
            values = {f":a{i}": v for i, v in enumerate(item.values())}
            sets = ", ".join(f"#a{i} = :a{i}" for i in range(len(item)))
            update: TransactWriteItemTypeDef = {
                "Update": {
                    "TableName": self.table,
                    "Key": to_ddb({"pk": layout_pk(layout_id)}),
                    "UpdateExpression": f"SET {sets}",
                    "ConditionExpression": "attribute_not_exists(pk) OR #v = :was",
                    "ExpressionAttributeNames": {**names, "#v": "version"},
                    "ExpressionAttributeValues": to_ddb({**values, ":was": current.version}),
                }
            }
            entry = note(after) if note is not None else None
            if history.write_noted(self.ddb, self.table, update, entry):
                return after
            # another review's change landed first: read it and apply again
        raise RuntimeError(f"layout {layout_id}: kept changing under {ATTEMPTS} writers")
