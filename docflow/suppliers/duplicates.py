"""Duplicate invoices: the keys one invoice claims, and the table that holds the claims
(template.yaml's `DuplicateTable`, docs/payment-controls.md "Duplicates").

An invoice or credit note claims, for each way its supplier is known (the registry's id when
the match is certain, and the printed vendor name, folded), two keys:

    number   supplier + the invoice number, upper-case letters and digits only
    amount   supplier + the invoice date + the total (two decimals) + the currency

    pk = DUP#<sha256 of the key>    documentId, version, runId, runOrder, the values it was
                                    made of (number, date, total, currency, vendor), the key
                                    of the upload, claimedAt

A claim is one conditional put: it succeeds when no one holds the key, or when the holder is
the same document at the same or an older run (a replay of the step, a new version of the
document: never its own duplicate). Any other holder is a hit, answered with the stored item
(`ReturnValuesOnConditionCheckFailure`), so two racing copies cannot both claim one key. A
release deletes only what this run holds (a condition on `runId`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from docflow.dynamo import ConditionFailed, Table
from docflow.extract.parse import fold
from docflow.extract.vendor import LEGAL_FORM

# The fields a key is made of: a reviewer's correction of one of them claims again.
KEY_FIELDS = ("invoice_number", "invoice_date", "total_amount", "currency", "vendor_name")
_NOT_ALNUM = re.compile(r"[^0-9A-Z]+")
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def number_key(number: str) -> str:
    """`INV-0042`, `inv 0042` and `INV0042` are one number; leading zeros stay (`42` and
    `0042` may be two invoices of one supplier's numbering)."""
    return _NOT_ALNUM.sub("", fold(number).upper())


def vendor_key(name: str) -> str:
    """The printed name without case, accents, punctuation or its legal form: `Blauwal
    Hafenlogistik GmbH` and `BLAUWAL HAFENLOGISTIK` are one vendor."""
    return _NOT_WORD.sub(" ", fold(LEGAL_FORM.sub(" ", name))).strip()


def amount_key(raw: str) -> str:
    """An amount in two decimals (`1,100.00`, `1.100,00`, `1100` -> `1100.00`); "" if none."""
    text = re.sub(r"[^0-9,.\-]", "", str(raw))
    if "," in text and "." in text:  # the later one is the decimal separator
        thousands = "," if text.rfind(",") < text.rfind(".") else "."
        text = text.replace(thousands, "").replace(",", ".")
    elif "," in text:
        head, _, tail = text.rpartition(",")
        text = f"{head.replace(',', '')}.{tail}" if len(tail) != 3 else text.replace(",", "")
    try:
        return str(Decimal(text).quantize(Decimal("0.01")))
    except (InvalidOperation, ValueError):
        return ""


def _value(summary: Mapping[str, Any], name: str) -> str:
    field = (summary.get("fields") or {}).get(name) or {}
    value = field.get("value")
    return str(value).strip() if value not in (None, "") else ""


def suppliers_of(summary: Mapping[str, Any]) -> list[str]:
    """How this invoice's supplier is known: the registry's id (a certain match only) and
    the printed name, folded. Both, so an invoice read before its supplier was registered
    still meets its copy read after."""
    out = []
    supplier = summary.get("supplier") or {}
    if supplier.get("certain") and supplier.get("supplierId"):
        out.append(f"id:{supplier['supplierId']}")
    name = vendor_key(_value(summary, "vendor_name"))
    if name:
        out.append(f"name:{name}")
    return out


@dataclass(frozen=True)
class Facts:
    """What an invoice's keys are made of, as the claim stores and the review page shows."""

    number: str
    date: str
    total: str
    currency: str
    vendor: str

    @classmethod
    def of(cls, summary: Mapping[str, Any]) -> Facts:
        return cls(
            number=_value(summary, "invoice_number"),
            date=_value(summary, "invoice_date"),
            total=_value(summary, "total_amount"),
            currency=_value(summary, "currency").upper(),
            vendor=_value(summary, "vendor_name"),
        )

    def keys(self, suppliers: list[str]) -> dict[str, str]:
        """{readable key: kind}: for each supplier, the number key and the amount key (each
        only when its values were read)."""
        out: dict[str, str] = {}
        number, total = number_key(self.number), amount_key(self.total)
        for supplier in suppliers:
            if number:
                out[f"number|{supplier}|{number}"] = "number"
            if total and self.date:
                out[f"amount|{supplier}|{self.date}|{total}|{self.currency}"] = "amount"
        return out

    def to_json(self) -> dict[str, str]:
        return {
            "number": self.number,
            "date": self.date,
            "total": self.total,
            "currency": self.currency,
            "vendor": self.vendor,
        }


def claim_pk(key: str) -> str:
    """The item's key: a digest, so no printed value is a key of the table."""
    return "DUP#" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]


@dataclass(frozen=True)
class Claimant:
    """The run that claims: its document, version and run, where it sorts among the
    document's runs (`DocumentRef.run_order`), and its upload's key."""

    document_id: str
    version: str
    run_id: str
    run_order: str
    key: str


def _claim_item(pk: str, who: Claimant, facts: Facts, kind: str, at: str) -> dict[str, Any]:
    """A claim: the key, who holds it (document, version, run, its order, file) and the facts
    the earlier document's reviewer is shown."""
    return {
        "pk": pk,
        "kind": kind,
        "documentId": who.document_id,
        "version": who.version,
        "runId": who.run_id,
        "runOrder": who.run_order,
        "key": who.key,
        "claimedAt": at,
        **facts.to_json(),
    }


class DuplicateStore:
    """The claims table; every write is conditional, so each call is safe to repeat."""

    def __init__(self, table: str, client: Any = None) -> None:
        self.table = Table(table, client)

    def claim(
        self, pk: str, who: Claimant, facts: Facts, kind: str, at: str
    ) -> dict[str, Any] | None:
        """None if `who` holds the key now; else the item of the other document holding it
        (an older run of the same document is taken over; a newer one answers None too:
        its own versions are never each other's duplicates)."""
        item = _claim_item(pk, who, facts, kind, at)
        try:
            self.table.put(
                item,
                condition="attribute_not_exists(pk) OR (documentId = :doc AND runOrder <= :order)",
                values={":doc": who.document_id, ":order": who.run_order},
            )
        except ConditionFailed as held:
            if held.item.get("documentId") == who.document_id:
                return None  # a newer run of this document holds it
            return held.item
        return None

    def take_over(
        self, pk: str, who: Claimant, facts: Facts, kind: str, at: str, held_by: str
    ) -> bool:
        """Claim a key whose holder (run `held_by`) ended without finalizing; False if it
        changed hands meanwhile."""
        item = _claim_item(pk, who, facts, kind, at)
        try:
            self.table.put(item, condition="runId = :held", values={":held": held_by})
        except ConditionFailed:
            return False
        return True

    def release(self, pk: str, run_id: str) -> bool:
        """Delete the claim if run `run_id` holds it: True if it did (nothing if another run
        holds it or no one does, so a repeat is harmless)."""
        try:
            self.table.delete(
                {"pk": pk},
                condition="runId = :run",
                values={":run": run_id},
            )
        except ConditionFailed:
            return False
        return True

    def get(self, pk: str) -> dict[str, Any] | None:
        return self.table.get({"pk": pk})


_SAME = {"number": "supplier and number", "amount": "supplier, date and total"}


def duplicate_lines(state: Mapping[str, Any]) -> list[str]:
    """`docflow show`'s lines for the documents this one may duplicate (`duplicateOf`)."""
    lines = []
    for e in state.get("duplicateOf") or []:
        total = " ".join(str(e[k]) for k in ("total", "currency") if e.get(k))
        facts = [f"{k} {v}" for k, v in (("number", e.get("number")), ("date", e.get("date"))) if v]
        facts += [f"total {total}"] if total else []
        said = f"{e.get('documentId')} ({e.get('status') or 'unknown'}"
        said += f", {', '.join(facts)})" if facts else ")"
        same = "; ".join(_SAME.get(str(b), str(b)) for b in e.get("by") or [])
        lines.append(f"{'duplicateOf':11} {said}: the same {same}" if same else said)
    return lines
