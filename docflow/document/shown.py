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
    printed: str | None  # the registry's value was shown; this is what the page printed
    box: list[float] | None  # None: the engine read no box
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
    repaired: bool  # a profile value whose OCR letters were repaired (O -> 0, S -> 5, ...)


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


class IbanShown(TypedDict, total=False):
    """An account read on the page, judged (`docflow.suppliers.ownership`): masked, whose it
    is (`owner`: issuer | other) and why, on which page (0: in an e-invoice's data)."""

    iban: str  # masked: `DE•••• 3000`
    valid: bool  # its check digits (or a national check) pass
    owner: str
    why: str  # docflow.suppliers.shown names each reason
    page: int
    kind: str  # uk | us | de | other; absent for an IBAN


class TaxIdShown(TypedDict, total=False):
    """A tax id read on the page: its kind (`vat`, `siren`, ...), value and whether it checks."""

    kind: str
    value: str
    valid: bool


class KeyDate(TypedDict):
    """A dated event the enrichment names, with the words before it (`docflow.enrich.schema`)."""

    label: str
    date: str  # YYYY-MM-DD


class FoundByModel(TypedDict):
    """What the enrich model found that a declared field no label named may take
    (`pipeline/enrich_fill.py`): the parties and key dates, a few of each."""

    parties: list[str]
    keyDates: list[KeyDate]


class EnrichShown(TypedDict, total=False):
    """The enrich pass's small part (`pipeline/enrich_shown.py`): its title and abstract,
    risk and how it was made, which the summary takes, and what it found, which it does not
    (only `enrichment` when the enrichment is incomplete)."""

    summary: Abstract
    risk: Risk
    enrichment: EnrichmentNote
    found: FoundByModel


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


class LayoutShown(TypedDict, total=False):
    """The learned layout the page is (`docflow.suppliers.hook`): `status` matched | none |
    ambiguous | withheld | data, and when matched its id, score and issuer; `language`: the
    language the page was read in, which a layout taught by its review keeps. Never a value it
    read (its shadow read stays in the run: `RunState.shadow`)."""

    status: str
    layoutId: str
    score: float
    issuer: str
    language: str


class EInvoiceShown(TypedDict, total=False):
    """An e-invoice's small object (docs/einvoice.md): where its data is, no lines."""

    key: str
    source: str  # xml | hybrid
    syntax: str
    customization: str | None  # None: the XML names none (so for the two below)
    typeCode: str | None
    lines: int
    lineTotal: str | None
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


class ProposalShown(TypedDict):
    """The supplier proposal a reviewer's "add this supplier" filed (`docflow.suppliers.enrol`):
    its id, the printed name and the one the reviewer approved (None: the same), its status,
    and why it conflicts with a registered supplier (None: it does not)."""

    proposalId: str
    name: str
    reviewerName: str | None
    status: str
    conflict: str | None


class ProposalAnswer(TypedDict, total=False):
    """The `propose supplier` step's answer: the proposal filed, or why none was."""

    supplierProposed: ProposalShown
    supplierNotAdded: str


class RegistryShown(TypedDict, total=False):
    """What the supplier registry adds to a summary (`docflow.suppliers.hook`), each key only
    when it has anything: the supplier matched, the learned layout, the accounts judged, the
    bank-details check, the tax ids, the fields read on the profile; and the profile's shadow
    read (field -> value), which stays in the run for the learn step and never in a summary."""

    supplier: SupplierShown
    layout: LayoutShown
    ibans: list[IbanShown]
    taxIds: list[TaxIdShown]
    bank: BankShown
    profileFields: list[str]
    shadow: dict[str, str | None]
