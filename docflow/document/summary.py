"""The document a run carries from classify to its end, as one record.

Every room that learns something about the document adds it with a named `with_*` call that
returns a new record; nothing merges dicts, so one room's key can never silently overwrite
another's. The record is written as the JSON the read model's reports, the review links and
final.json have always held (`to_json`: the same keys, values and order on the runs the
recorded payloads cover, tests/pipeline/test_sample_payloads.py), and read back from any of
them (`from_json`, tolerant of a key it does not know: kept in `more`, written back last).

    docType, confidence, sensitive, lowConfidence, pages, engines   classify
    activeContent                                                   split
    einvoice                                                        read e-invoice
    fields, fieldChecks, supplier, layout, ibans, bank, taxIds, profileFields
                                                                    extract (the registry)
    summary, risk, enrichment                                       enrich
    triage                                                          an approved triage
    duplicateKeys, duplicateOf                                      claim duplicate keys
    supplierProposed | supplierNotAdded                             propose supplier
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from docflow.document.fields import (
    Check,
    Field,
    checks_from_json,
    checks_json,
    fields_from_json,
    fields_json,
)
from docflow.document.shown import (
    Abstract,
    BankShown,
    DuplicateHit,
    EInvoiceShown,
    EnrichmentNote,
    EnrichShown,
    IbanShown,
    LayoutShown,
    ProposalAnswer,
    ProposalShown,
    RegistryShown,
    Risk,
    SupplierShown,
    TaxIdShown,
)

# Every key the record names, in the order it writes them; any other is kept in `more`.
_KEYS = (
    "docType",
    "confidence",
    "sensitive",
    "lowConfidence",
    "pages",
    "engines",
    "activeContent",
    "einvoice",
    "fields",
    "fieldChecks",
    "supplier",
    "layout",
    "ibans",
    "bank",
    "taxIds",
    "profileFields",
    "summary",
    "risk",
    "enrichment",
    "triage",
    "duplicateKeys",
    "duplicateOf",
    "supplierProposed",
    "supplierNotAdded",
)


@dataclass(frozen=True)
class Triage:
    """A triage stage's pick: the classifier's type (`was`), the reviewer's, who and when."""

    was: str
    doc_type: str
    by: str
    at: str

    def to_json(self) -> dict[str, str]:
        return {"from": self.was, "docType": self.doc_type, "by": self.by, "at": self.at}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Triage:
        return cls(
            str(raw.get("from") or ""),
            str(raw.get("docType") or ""),
            str(raw.get("by") or ""),
            str(raw.get("at") or ""),
        )


@dataclass(frozen=True)
class DocumentSummary:
    """What the run knows about its document (module docstring). `fields` is None for a type
    that declares none (no key written), `{}` for one whose fields were cleared (a triage pick
    of another type before its own are read)."""

    doc_type: str
    # What classify says; None where no classifier spoke (a packet's own record).
    confidence: float | None = None
    sensitive: Mapping[str, int] | None = None
    low_confidence: bool | None = None
    pages: int | None = None
    engines: Mapping[str, int] | None = None
    active_content: tuple[str, ...] = ()
    einvoice: EInvoiceShown | None = None
    fields: Mapping[str, Field] | None = None
    checks: tuple[Check, ...] = ()
    supplier: SupplierShown | None = None
    layout: LayoutShown | None = None  # the learned layout the page is (no value it read)
    ibans: tuple[IbanShown, ...] = ()
    bank: BankShown | None = None
    tax_ids: tuple[TaxIdShown, ...] = ()
    profile_fields: tuple[str, ...] = ()
    abstract: Abstract | None = None
    risk: Risk | None = None
    enrichment: EnrichmentNote | None = None
    triage: Triage | None = None
    duplicate_keys: tuple[str, ...] = ()
    duplicate_of: tuple[DuplicateHit, ...] = ()
    proposed: ProposalShown | None = None  # the supplier proposal a reviewer asked for
    not_proposed: str | None = None  # why none was filed
    more: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    # -- what the rooms ask of it ---------------------------------------------------------

    @property
    def has_fields(self) -> bool:
        """Its type declares fields (they were read, or are to be)."""
        return self.fields is not None

    def field(self, name: str) -> Field | None:
        return (self.fields or {}).get(name)

    def text(self, name: str) -> str:
        """A field's value as text, "" when it has none."""
        found = self.field(name)
        return found.text if found is not None else ""

    @property
    def supplier_id(self) -> str | None:
        """The registered supplier it was matched to with certainty, if any."""
        s = self.supplier or {}
        return str(s["supplierId"]) if s.get("certain") and s.get("supplierId") else None

    @property
    def einvoice_key(self) -> str | None:
        """Where its e-invoice data is (an e-invoice only)."""
        return str(self.einvoice["key"]) if self.einvoice and self.einvoice.get("key") else None

    @property
    def holding_checks(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.holds)

    # -- what the rooms add ---------------------------------------------------------------

    def with_fields(
        self, fields: Mapping[str, Field], checks: Iterable[Check], registry: RegistryShown
    ) -> DocumentSummary:
        """Extraction's fields and checks, and what the registry said (`registry`: the
        extract step's `shown`, of which the summary keeps the supplier, accounts, bank
        check, learned layout, tax ids and profile fields it has)."""
        return replace(
            self,
            fields=dict(fields),
            checks=tuple(checks),
            supplier=registry.get("supplier") or None,
            layout=registry.get("layout") or None,
            ibans=tuple(registry.get("ibans") or ()),
            bank=registry.get("bank") or None,
            tax_ids=tuple(registry.get("taxIds") or ()),
            profile_fields=tuple(registry.get("profileFields") or ()),
        )

    def without_fields(self) -> DocumentSummary:
        """Its fields cleared, and what the registry said of them (a triage pick of another
        type: none of them hold for it)."""
        return replace(
            self,
            fields={},
            checks=(),
            supplier=None,
            layout=None,
            ibans=(),
            bank=None,
            tax_ids=(),
            profile_fields=(),
        )

    def with_field(self, name: str, value: Field) -> DocumentSummary:
        return replace(self, fields={**(self.fields or {}), name: value})

    def with_checks(self, more: Iterable[Check]) -> DocumentSummary:
        return replace(self, checks=(*self.checks, *more))

    def with_enrichment(self, shown: EnrichShown) -> DocumentSummary:
        """The enrich step's small part: its title and abstract, risk, and how it was made."""
        return replace(
            self,
            abstract=shown.get("summary"),
            risk=shown.get("risk"),
            enrichment=shown.get("enrichment"),
        )

    def with_duplicates(
        self, keys: Iterable[str], earlier: Iterable[DuplicateHit]
    ) -> DocumentSummary:
        """The keys this run holds (what an archive releases) and the documents it may
        duplicate (none: what an earlier claim found no longer holds)."""
        return replace(self, duplicate_keys=tuple(keys), duplicate_of=tuple(earlier))

    def with_triage(self, picked: Triage) -> DocumentSummary:
        return replace(self, doc_type=picked.doc_type, triage=picked)

    def with_proposal(self, answer: ProposalAnswer) -> DocumentSummary:
        """The propose step's answer: the proposal filed, or why none was."""
        if proposed := answer.get("supplierProposed"):
            return replace(self, proposed=proposed.copy(), not_proposed=None)
        return replace(self, proposed=None, not_proposed=str(answer.get("supplierNotAdded", "")))

    # -- JSON -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"docType": self.doc_type}
        optional: tuple[tuple[str, Any], ...] = (
            ("confidence", self.confidence),
            ("sensitive", None if self.sensitive is None else dict(self.sensitive)),
            ("lowConfidence", self.low_confidence),
            ("pages", self.pages),
            ("engines", None if self.engines is None else dict(self.engines)),
            ("activeContent", list(self.active_content) if self.active_content else None),
            ("einvoice", self.einvoice),
            ("fields", None if self.fields is None else fields_json(self.fields)),
            ("fieldChecks", None if self.fields is None else checks_json(self.checks)),
            ("supplier", self.supplier),
            ("layout", self.layout),
            ("ibans", [dict(i) for i in self.ibans] or None),
            ("bank", self.bank),
            ("taxIds", [dict(t) for t in self.tax_ids] or None),
            ("profileFields", list(self.profile_fields) or None),
            ("summary", self.abstract),
            ("risk", self.risk),
            ("enrichment", self.enrichment),
            ("triage", self.triage.to_json() if self.triage else None),
            ("duplicateKeys", list(self.duplicate_keys) or None),
            ("duplicateOf", [dict(d) for d in self.duplicate_of] or None),
            ("supplierProposed", self.proposed),
            ("supplierNotAdded", self.not_proposed),
        )
        out.update((k, v) for k, v in optional if v is not None)
        return {**out, **self.more}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DocumentSummary:
        fields = raw.get("fields")
        triage = raw.get("triage")
        return cls(
            doc_type=str(raw.get("docType") or ""),
            confidence=raw.get("confidence"),
            sensitive=None if raw.get("sensitive") is None else dict(raw["sensitive"]),
            low_confidence=raw.get("lowConfidence"),
            pages=raw.get("pages"),
            engines=None if raw.get("engines") is None else dict(raw["engines"]),
            active_content=tuple(raw.get("activeContent") or ()),
            einvoice=raw.get("einvoice") or None,
            fields=None if fields is None else fields_from_json(fields),
            checks=checks_from_json(raw.get("fieldChecks")),
            supplier=raw.get("supplier") or None,
            layout=raw.get("layout") or None,
            ibans=tuple(raw.get("ibans") or ()),
            bank=raw.get("bank") or None,
            tax_ids=tuple(raw.get("taxIds") or ()),
            profile_fields=tuple(raw.get("profileFields") or ()),
            abstract=raw.get("summary") or None,
            risk=raw.get("risk") or None,
            enrichment=raw.get("enrichment") or None,
            triage=Triage.from_json(triage) if isinstance(triage, Mapping) else None,
            duplicate_keys=tuple(raw.get("duplicateKeys") or ()),
            duplicate_of=tuple(raw.get("duplicateOf") or ()),
            proposed=raw.get("supplierProposed") or None,
            not_proposed=raw.get("supplierNotAdded"),
            more={k: v for k, v in raw.items() if k not in _KEYS},
        )
