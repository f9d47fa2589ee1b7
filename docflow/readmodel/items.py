"""The read model's items as types: a report's payload, a document's current state, a history row,
a packet's part and what `show` answers.

These are the shapes the `docflow` command's `--json` and the dashboard return (docs/cli.md), so
they are written down once, here. They are TypedDicts, not dataclasses: an item is JSON from
DynamoDB and goes out as JSON again, and a state item carries the payload fields it was given.
`total=False` where DynamoDB omits an attribute that was never set (`to_ddb` drops None).
"""

from __future__ import annotations

from typing import TypedDict

from docflow.cost import CostEstimate
from docflow.document.shown import (
    Abstract,
    BankShown,
    DuplicateHit,
    EInvoiceShown,
    EnrichmentNote,
    FieldValue,
    IbanShown,
    LayoutShown,
    Risk,
    SupplierShown,
    TaxIdShown,
)


class Moved(TypedDict):
    """Where an attribute moved to S3 is (`docflow.readmodel.detail`): the S3 key of the
    report's whole payload, and how many entries the whole attribute had (a list's items, an
    object's keys, a text's characters)."""

    key: str
    count: int


class ReviewLink(TypedDict):
    reviewer: str
    linkId: str  # a short hash of the link, never the link


class Vote(TypedDict, total=False):
    reviewer: str
    decision: str
    at: str
    comment: str
    reason: str


class Awaiting(TypedDict, total=False):
    """What an invoice waits for (`awaiting-match`, docs/matching.md): the order or a receipt,
    the order's number as printed and its supplier's normal form, until when, receipts so far."""

    kind: str
    order: str
    supplier: str
    deadline: str
    receipts: int


class SupplierProposed(TypedDict, total=False):
    """The supplier proposal a reviewer asked for (docflow.suppliers.enrol): its id, the name
    proposed, the reviewer's correction of it, its status, a conflict with a registered one."""

    proposalId: str
    name: str
    reviewerName: str | None
    status: str
    conflict: str | None


class Payload(TypedDict, total=False):
    """A report's summary fields (`schema.PAYLOAD_FIELDS` checks them on the wire); the
    recorder merges them into the document's state."""

    bucket: str
    key: str
    etag: str
    functionVersion: str
    pages: int
    bytes: int
    batches: int
    engines: dict[str, int]
    docType: str
    confidence: float | str
    sensitive: dict[str, int]
    activeContent: list[str]
    einvoice: EInvoiceShown  # docs/einvoice.md: the summary's small object, no lines
    lowConfidence: bool
    stages: list[str]
    stageIndex: int
    stageName: str
    reviewers: list[str]
    reviewLinks: list[ReviewLink]
    reviewDeadline: str
    decision: str
    reviewer: str
    comment: str
    rejectReason: str
    decidedAt: str
    votes: list[Vote]
    reason: str
    message: str
    resultKey: str
    archiveKey: str
    cost: CostEstimate
    fields: dict[str, FieldValue]
    fieldChecks: list[dict[str, str]]
    corrections: dict[str, str]
    supplier: SupplierShown  # docflow.suppliers.shown: the match and its evidence
    layout: LayoutShown  # docflow.suppliers.hook: the learned layout matched (no values)
    supplierProposed: SupplierProposed
    supplierNotAdded: str
    ibans: list[IbanShown]
    bank: BankShown  # docflow.suppliers.bank: the verdict and the masked accounts
    taxIds: list[TaxIdShown]
    profileFields: list[str]
    duplicateKeys: list[str]
    duplicateOf: list[DuplicateHit]
    replaces: dict[str, str]  # the finalized version a finalized new version replaces
    awaiting: Awaiting  # only while `awaiting-match`
    # An invoice's match against its order (docflow.matching.results.MatchJson: the read
    # model carries it as it came, below matching in the house, as EventDetail does).
    match: dict[str, object]
    summary: Abstract
    risk: Risk
    enrichment: EnrichmentNote
    parts: int
    partsFailed: int
    parentId: str
    parentRunId: str
    parentPages: list[int]
    parentKey: str
    detail: dict[str, Moved]  # attributes moved to S3 (detail.py), set by the recorder


class ReportKeys(TypedDict, total=False):
    """What an item keeps of the report that wrote it: its key, run, position and status."""

    pk: str
    sk: str
    documentId: str
    version: str
    runId: str
    runOrder: str
    eventId: str
    seq: int
    status: str
    stage: str


class DocumentState(Payload, ReportKeys, total=False):
    """The `STATE` item: where a document is now, with every payload field it was given."""

    updatedAt: str
    firstSeenAt: str
    rev: int
    # The sparse indexes' keys (table.py): present only while the question applies.
    pendingPk: str
    pendingSince: str
    activePk: str
    failedPk: str
    failedAt: str
    orderPk: str
    announcedEventId: str


class HistoryItem(ReportKeys, total=False):
    """An `EVENT#` item: one report as it arrived (schema.Report.to_dict), kept a year."""

    at: str
    cause: str
    payload: Payload
    expiresAt: int


class ChildItem(TypedDict, total=False):
    """A packet's part as mirrored into the packet's partition (table.CHILD_FIELDS)."""

    pk: str
    sk: str
    documentId: str
    key: str
    status: str
    stageName: str
    docType: str
    reason: str
    parentPages: list[int]
    parentKey: str
    runId: str
    updatedAt: str


class DocumentView(TypedDict):
    """`ReadModel.show`: the current state (None before the first report) and every report in
    run order."""

    state: DocumentState | None
    history: list[HistoryItem]


class ShownDocument(DocumentView, total=False):
    """`docflow show --json`: `show`'s answer, and a packet's parts as each last reported."""

    children: list[ChildItem]
