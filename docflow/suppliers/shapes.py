"""The supplier registry's records as types: a learned profile, the bank-details check as shown,
a supplier's and a proposal's stored JSON, the audit ledger and its report.

TypedDicts, since each is stored in DynamoDB and printed by `docflow suppliers | audit --json`
as it is (docflow/cli/shapes.py says the same shapes in words for --help).
"""

from __future__ import annotations

from typing import TypedDict


class ProfileEntry(TypedDict, total=False):
    """Where a supplier prints one field: after `label`, inside `region` on `page`, of
    `shape`; or `absent` (it prints none). The counts say how far it is trusted."""

    label: str
    region: list[float]  # [x0, y0, x1, y1], page-relative
    page: int
    shape: str
    absent: bool
    confirmed: int  # agreeing reviews since the entry was learned or restored
    misses: int
    suspended: bool
    since: str  # the run id of the review that began the count
    # [dx, dy]: the value's box centre from its label cell's top left, page-relative (an
    # entry learned before has none and is read inside its region).
    offset: list[float]


class Profile(TypedDict, total=False):
    fields: dict[str, ProfileEntry]
    runs: list[str]  # the reviews already applied (a repeat is not counted twice)
    # The layout's stable lines, [masked text, x0, y0] each (docflow.suppliers.fingerprint).
    fingerprint: list[list[str | float]]


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


class FieldStreak(TypedDict):
    since: str  # the profile entry's `since`: a new streak starts the count again
    count: int


class AuditRun(TypedDict):
    run: str
    audit: str  # "first", "rate" or "" (not sampled)


class AuditOutcome(TypedDict, total=False):
    documentId: str
    fields: list[str]  # audited
    misses: list[str]  # corrected by the auditor
    decidedBy: str
    at: str


class AuditCounts(TypedDict):
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
    fields: dict[str, FieldStreak]
    runs: list[AuditRun]
    outcomes: list[AuditOutcome]
    audits: list[str]
    version: int  # each change is a conditional write on it
    listing: str  # the sparse index's key that lists every ledger
    listedAt: str


class Share(TypedDict):
    share: float
    low: float
    high: float


class AuditSummary(AuditCounts):
    wrongShare: Share | None
    expectedWrongValues: Share | None  # the share's figures times the unreviewed values


class SupplierAudit(AuditSummary):
    supplierId: str
    name: str | None


class AuditReport(TypedDict):
    """`docflow audit --json`."""

    suppliers: list[SupplierAudit]
    overall: AuditSummary
    confidence: float
    method: str
