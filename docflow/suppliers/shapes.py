"""The supplier registry's records as types: a learned profile, the bank-details check as shown,
a supplier's and a proposal's stored JSON, the audit ledger and its report.

TypedDicts, since each is stored in DynamoDB and printed by `docflow suppliers | audit --json`
as it is (docflow/cli/shapes.py says the same shapes in words for --help).
"""

from __future__ import annotations

from typing import TypedDict


class Graded(TypedDict, total=False):
    """A profile field's graded record: its shadow reads against the values people approved
    (docflow.suppliers.trust.grade)."""

    hits: int
    misses: int
    last: str  # "hit" or "miss"
    at: str  # when it was last graded (ISO 8601)
    run: str  # the run whose review graded it last


class ProfileEntry(TypedDict, total=False):
    """Where a layout prints one field: after `label`, inside `region` on `page`, of
    `shape`; or `absent` (it prints none); or the constant `value` it always prints (its
    issuer's name). The counts say how far it is trusted (docflow.suppliers.trust)."""

    label: str
    region: list[float]  # [x0, y0, x1, y1], page-relative
    page: int
    shape: str
    absent: bool
    value: str  # a constant: the issuer's name as people confirmed it
    confirmed: int  # agreeing reviews since the entry was learned or restored
    misses: int
    suspended: bool
    suspendedWhy: str  # "misses" (a person restores it) or "streak" (an operator resets it)
    since: str  # the run id of the review that began the count
    graded: Graded
    reviewers: list[str]  # the people who confirmed it in its streak (at most 10)
    # [dx, dy]: the value's box centre from its label cell's top left, page-relative (an
    # entry learned before has none and is read inside its region).
    offset: list[float]


class Profile(TypedDict, total=False):
    fields: dict[str, ProfileEntry]
    runs: list[str]  # the reviews already applied (a repeat is not counted twice)
    # The layout's stable lines, [masked text, x0, y0] each (docflow.suppliers.fingerprint).
    fingerprint: list[list[str | float]]


class LayoutJson(TypedDict, total=False):
    """A layout as stored and as `docflow suppliers layouts --json` prints it
    (docflow.suppliers.layouts)."""

    layoutId: str
    issuer: str | None  # the name people confirmed for it, when they did
    supplierId: str | None  # the registered supplier a checked id or IBAN named
    docType: str
    language: str
    profile: Profile
    version: int


class SupplierJson(TypedDict, total=False):
    """`Supplier.to_json` (docflow suppliers show --json)."""

    supplierId: str
    name: str
    aliases: list[str]
    ids: dict[str, list[str]]  # kind -> values (vat, siret, ..., iban)
    currency: str | None
    profile: Profile
    profileVersion: int


class ProposalJson(TypedDict):
    """A proposed supplier as stored (IBANs masked when printed)."""

    proposalId: str
    name: str
    ids: dict[str, list[str]]
    currency: str | None
    documentId: str
    version: str
    proposer: str
    proposedAt: str
    status: str
    conflict: str | None
    decidedBy: str | None
    decidedAt: str | None
    reason: str | None
    reviewerName: str | None  # the vendor name the reviewer approved, where not the printed


class AuditRun(TypedDict):
    run: str
    audit: str  # "rate" (sampled) or "" (not sampled)


class AuditOutcome(TypedDict, total=False):
    """What an approved audit found (`pipeline/audit.audit_outcome`), as the ledger keeps it."""

    documentId: str
    runId: str
    fields: list[str]  # audited
    misses: list[str]  # corrected by the auditor
    decidedBy: str
    at: str


class AuditCounts(TypedDict):
    graded: int  # reviews that graded a layout's shadow read (the audit's first window)
    gradedValues: int
    gradedMisses: int
    unreviewed: int
    unreviewedValues: int
    sampled: int
    audited: int
    valuesAudited: int
    misses: int
    documentsWithMiss: int


class Ledger(AuditCounts, total=False):
    """One supplier's audit ledger item."""

    pk: str
    supplierId: str
    runs: list[AuditRun]
    gradedRuns: list[str]
    outcomes: list[AuditOutcome]
    audits: list[str]
    version: int  # each change is a conditional write on it
    listing: str  # the sparse index's key that lists every ledger
    listedAt: str


class Share(TypedDict):
    share: float
    low: float
    high: float


class GradedSummary(TypedDict):
    """The audit's first window: shadow reads graded by the reviews that made fields
    trusted."""

    documents: int
    values: int
    misses: int
    wrongShare: Share | None


class SampledSummary(TypedDict):
    """The audit's sample: documents read on a trusted layout, drawn into the audit stage."""

    documents: int
    audited: int
    values: int
    misses: int
    documentsWithMiss: int
    wrongShare: Share | None


class AuditSummary(TypedDict):
    graded: GradedSummary
    sampled: SampledSummary
    unreviewed: int
    unreviewedValues: int
    expectedWrongValues: Share | None  # the sample's share times the unreviewed values


class LayoutAudit(AuditSummary):
    layoutId: str
    issuer: str | None
    supplierId: str | None


class AuditReport(TypedDict):
    """`docflow audit --json`."""

    layouts: list[LayoutAudit]
    overall: AuditSummary
    confidence: float
    method: str
