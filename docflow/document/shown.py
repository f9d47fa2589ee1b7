"""The JSON shapes of what a document's summary shows and never decides on: the supplier
match and its evidence, the accounts and the bank-details verdict (masked only), the tax ids,
the e-invoice's small object, the enrichment's title, abstract and risk, the documents it may
duplicate, a supplier proposal. Each is written by the room that makes it and read back by the
review page, `docflow show` and the read model; `docs/cli.md` documents them (`show --json`)."""

from __future__ import annotations

from typing import Any, TypedDict


class FieldValue(TypedDict, total=False):
    """One key field as checkpoints and the read model carry it (never its raw text); the
    typed form is `docflow.document.Field`."""

    value: str
    confidence: float
    page: int
    printed: str  # the registry's value was shown; this is what the page printed
    box: list[float]
    derived: bool
    # A table field's rows (`value` then says how many: "3 rows").
    rows: list[dict[str, str]]
    # In an item whose report did not fit (readmodel/detail.py): the rows' count and number
    # columns' sums in place of the rows, which are in S3.
    rowCount: int
    sums: dict[str, str]
    originalRowCount: int
    # An advisory table whose own checks did not all run and pass (`table_checks.py`).
    unverified: bool
    # A reviewer's correction: what was read (a table: its rows), and who changed it.
    original: str | list[dict[str, str]] | None
    correctedBy: str
    correctedAt: str
    masked: str  # the detector whose match the value held, masked to its last four
    # Read on a supplier's learned profile, or certain from the registry.
    source: str


class RiskReason(TypedDict, total=False):
    code: str
    message: str
    page: int


class Abstract(TypedDict, total=False):
    """The enrichment's `summary`: a title and a short abstract, masked."""

    title: str
    abstract: str


class Risk(TypedDict, total=False):
    level: str
    reasons: list[RiskReason]


class EnrichmentNote(TypedDict, total=False):
    """How the summary and risk were made: on demand or in a pile's batch job."""

    mode: str
    engine: str
    status: str
    key: str
    jobId: str
    reason: str
    onDemandReason: str  # a pile's document enriched on demand: why (cli/piles.py WHY)
    waitSeconds: float  # how long a pile's document waits for its job before on-demand


class AccountShown(TypedDict, total=False):
    """An account as the bank-details check shows it: masked, with its bank where known."""

    iban: str  # the account masked (`DE•••• 3000`; a national one `UK•••• 6819`)
    kind: str  # uk | us | de | other (docflow.accounts); absent for an IBAN
    valid: bool  # False: no check recognizes it (absent when it passes)
    bank: str
    bic: str
    holder: str  # another registered supplier's id, when the account is theirs
    registered: bool  # registered for the issuer


class BankShown(TypedDict, total=False):
    """The bank-details check as checkpoints, the read model and the review page carry it."""

    verdict: str
    printed: list[AccountShown]
    message: str
    supplierId: str
    registered: list[AccountShown]


class SupplierShown(TypedDict, total=False):
    """Who issued it as the registry says (`docflow.suppliers.hook`): the match and its
    evidence, or `{"status": "unknown" | "ambiguous"}`."""

    supplierId: str
    name: str
    by: str  # vat, iban, fingerprint, name, ...
    key: str  # the id it was matched by, an IBAN masked
    score: float
    certain: bool
    evidence: list[Any]
    status: str


class EInvoiceShown(TypedDict, total=False):
    """An e-invoice's small object (docs/einvoice.md): where its data is, no lines."""

    key: str
    source: str  # xml | hybrid
    syntax: str
    customization: str
    typeCode: str
    lines: int
    lineTotal: str
    valid: bool
    fatal: list[str]
    warnings: int
    skipped: list[str]


class DuplicateHit(TypedDict, total=False):
    """A document this one may duplicate, as the claims table and the read model had it."""

    documentId: str
    version: str
    key: str
    number: str
    date: str
    total: str
    currency: str
    vendor: str
    status: str
    by: list[str]  # number | amount | bill | window | declared
