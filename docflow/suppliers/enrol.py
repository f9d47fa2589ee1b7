"""A supplier a fields reviewer adds from the document in front of them ("add this supplier").

The reviewer only says yes: the name is the vendor name they approved, the currency the one
they approved, and the ids are the ones the document itself prints for its issuer, found and
checked again here (checked tax ids outside the customer's block, IBANs judged the issuer's).
So a page can register nothing the document does not show, and an id another supplier holds
refuses the whole registration instead of moving the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from docflow.extract.layout import Page
from docflow.suppliers.ids import masked_iban
from docflow.suppliers.match import issuer_tax_ids
from docflow.suppliers.model import Supplier, SupplierError
from docflow.suppliers.ownership import ISSUER, judge_ibans
from docflow.suppliers.store import ClaimConflict, SupplierStore

# How a supplier added from a review shows where it was matched (`supplier.by`).
BY_REVIEW = "review"


@dataclass(frozen=True)
class Enrolled:
    """The registration's outcome: the supplier as the summary shows a match, or why not."""

    shown: dict[str, Any] | None
    refused: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"supplier": self.shown} if self.shown else {"supplierNotAdded": self.refused}


def issuer_ids(layouts: Sequence[Page], name: str) -> dict[str, list[str]]:
    """The checked ids the document prints for its issuer, by kind (IBANs last)."""
    ids: dict[str, list[str]] = {}
    for found in issuer_tax_ids(layouts):
        if found.valid and found.value not in ids.get(found.kind, []):
            ids.setdefault(found.kind, []).append(found.value)
    for iban in judge_ibans(layouts, name):
        if iban.valid and iban.owner == ISSUER and iban.value not in ids.get("iban", []):
            ids.setdefault("iban", []).append(iban.value)
    return ids


def enrol(store: SupplierStore, layouts: Sequence[Page], name: str, currency: str) -> Enrolled:
    """Register the issuer under `name` with the ids the pages print. Safe to run twice: a
    supplier of that id already there keeps its record and gains the ids (its profile too)."""
    ids = issuer_ids(layouts, name)
    if not ids:
        return Enrolled(None, "the document prints no checked id of its issuer")
    try:
        new = Supplier.parse({"name": name, "ids": ids, "currency": currency})
    except SupplierError as exc:
        return Enrolled(None, str(exc))
    old = store.get(new.supplier_id)
    if old is not None:  # the same name registered already (or this step ran before)
        merged = {k: list(dict.fromkeys([*old.ids.get(k, ()), *v])) for k, v in ids.items()}
        merged |= {k: list(v) for k, v in old.ids.items() if k not in ids}
        new = replace(old, ids={k: tuple(v) for k, v in merged.items()})
    try:
        store.put(new)
    except ClaimConflict as exc:
        return Enrolled(None, f"{_shown_key(exc.key)} belongs to supplier {exc.holder}")
    first = new.keys[0]
    return Enrolled(
        {
            "supplierId": new.supplier_id,
            "name": new.name,
            "by": BY_REVIEW,
            "key": _shown_key(first),
            "score": 100,
            "certain": True,
        }
    )


def _shown_key(key: str) -> str:
    kind, _, value = key.partition(":")
    return f"iban:{masked_iban(value)}" if kind == "iban" else key
