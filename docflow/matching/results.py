"""What the matching steps checkpoint, as small records with one JSON shape each
(`docflow.pipeline.serdes.RecordSerDes`): what a look at the order's partition saw, and the
match as the run carries it (its summary's `match`, which the read model, the `finalized`
event and the finalized record keep).

`match` in a document's summary (docs/matching.md):

    {"status": "matched" | "held" | "superseded", "matched": bool, "role": "bill" | "credit",
     "order": {"supplier", "number", "printed", "documentId", "version"} | null,
     "basis": "lines" | "header" | "none", "basisWhy": "...",
     "differences": [{"code", "message", "line"?, "orderLine"?}] (the first 20),
     "differenceCount": n, "threeWay": bool, "receipts": n,
     "amount": "1100.00" (signed: a credit note's is negative), "billedBefore": "0.00",
     "reserved": bool, "billed": bool, "tolerance": {"unitPrice": {"share", "absolute"},
     "quantity": {...}, "total": {...}}, "key": "docs/.../match.json",
     "overriddenBy": "reviewer" (approved at the match stage), "note": "their comment"}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NotRequired, TypedDict

from docflow.document import DocumentSummary
from docflow.matching.keys import OrderKey
from docflow.matching.verdict import Difference, DifferenceJson

MATCHED, HELD, SUPERSEDED = "matched", "held", "superseded"
MAX_SHOWN = 20  # differences kept in the summary; all of them are in match.json


class SightingJson(TypedDict):
    order: bool
    receipts: int
    covered: bool
    deadline: str
    waitSeconds: int


class MatchJson(TypedDict):
    """`match` in a document's summary (the module's docstring); the last five only when
    they say something."""

    status: str
    matched: bool
    role: str
    order: dict[str, str] | None
    basis: str
    differences: list[DifferenceJson]
    differenceCount: int
    threeWay: bool
    receipts: int
    amount: str
    billedBefore: str
    reserved: bool
    billed: bool
    basisWhy: NotRequired[str]
    tolerance: NotRequired[dict[str, dict[str, str]]]
    key: NotRequired[str]
    overriddenBy: NotRequired[str]
    note: NotRequired[str]


@dataclass(frozen=True)
class Sighting:
    """A look at the order's partition: is the order there, how many receipts, do they cover
    what the invoice bills; the wait's deadline (fixed by the first look) and the seconds left
    to it when this look was taken."""

    order: bool
    receipts: int
    covered: bool
    deadline: str
    wait_s: int

    def to_json(self) -> SightingJson:
        return {
            "order": self.order,
            "receipts": self.receipts,
            "covered": self.covered,
            "deadline": self.deadline,
            "waitSeconds": self.wait_s,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Sighting:
        return cls(
            bool(raw["order"]),
            int(raw.get("receipts", 0)),
            bool(raw.get("covered", False)),
            str(raw.get("deadline", "")),
            int(raw.get("waitSeconds", 0)),
        )


@dataclass(frozen=True)
class OrderRef:
    key: OrderKey
    document_id: str = ""
    version: str = ""

    def to_json(self) -> dict[str, str]:
        out = self.key.to_json()
        if self.document_id:
            out.update(documentId=self.document_id, version=self.version)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> OrderRef:
        return cls(
            OrderKey.from_json(raw), str(raw.get("documentId", "")), str(raw.get("version", ""))
        )


@dataclass(frozen=True)
class MatchRecord:
    status: str
    role: str
    order: OrderRef | None
    basis: str
    basis_why: str = ""
    differences: tuple[Difference, ...] = ()
    difference_count: int = 0
    three_way: bool = False
    receipts: int = 0
    amount: str = "0"
    billed_before: str = "0"
    reserved: bool = False
    billed: bool = False
    tolerance: Mapping[str, Mapping[str, str]] | None = None
    key: str = ""
    overridden_by: str = ""
    note: str = ""

    @property
    def matched(self) -> bool:
        return self.status == MATCHED

    def overridden(self, reviewer: str, note: str) -> MatchRecord:
        return replace(self, overridden_by=reviewer, note=note[:500])

    def to_json(self) -> MatchJson:
        out: MatchJson = {
            "status": self.status,
            "matched": self.matched,
            "role": self.role,
            "order": self.order.to_json() if self.order else None,
            "basis": self.basis,
            "differences": [d.to_json() for d in self.differences[:MAX_SHOWN]],
            "differenceCount": self.difference_count,
            "threeWay": self.three_way,
            "receipts": self.receipts,
            "amount": self.amount,
            "billedBefore": self.billed_before,
            "reserved": self.reserved,
            "billed": self.billed,
        }
        if self.basis_why:
            out["basisWhy"] = self.basis_why
        if self.tolerance:
            out["tolerance"] = {k: dict(v) for k, v in self.tolerance.items()}
        if self.key:
            out["key"] = self.key
        if self.overridden_by:
            out["overriddenBy"] = self.overridden_by
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> MatchRecord:
        order = raw.get("order")
        return cls(
            status=str(raw["status"]),
            role=str(raw.get("role", "")),
            order=OrderRef.from_json(order) if isinstance(order, Mapping) else None,
            basis=str(raw.get("basis", "")),
            basis_why=str(raw.get("basisWhy", "")),
            differences=tuple(Difference.from_json(d) for d in raw.get("differences") or ()),
            difference_count=int(raw.get("differenceCount", 0)),
            three_way=bool(raw.get("threeWay", False)),
            receipts=int(raw.get("receipts", 0)),
            amount=str(raw.get("amount", "0")),
            billed_before=str(raw.get("billedBefore", "0")),
            reserved=bool(raw.get("reserved", False)),
            billed=bool(raw.get("billed", False)),
            tolerance=raw.get("tolerance"),
            key=str(raw.get("key", "")),
            overridden_by=str(raw.get("overriddenBy", "")),
            note=str(raw.get("note", "")),
        )


@dataclass(frozen=True)
class Woken:
    """The wake step: how many waiting invoices it woke, and how many were woken before."""

    woken: int
    already: int = 0

    def to_json(self) -> dict[str, int]:
        return {"woken": self.woken, "already": self.already}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Woken:
        return cls(int(raw.get("woken", 0)), int(raw.get("already", 0)))


def match_of(summary: DocumentSummary) -> MatchRecord | None:
    """The match a document's record carries (its `match` key), if it has one."""
    raw = summary.more.get("match")
    return MatchRecord.from_json(raw) if isinstance(raw, Mapping) else None


def with_match(summary: DocumentSummary, record: MatchRecord) -> DocumentSummary:
    """The record with its match: kept under `match`, a key the document's record leaves to
    matching (written after the keys it names, as the read model and final.json show it)."""
    return replace(summary, more={**summary.more, "match": record.to_json()})


def without_match(summary: DocumentSummary) -> DocumentSummary:
    """The record with no match (a correction left it citing no order)."""
    return replace(summary, more={k: v for k, v in summary.more.items() if k != "match"})
