"""What a domain event says: its detail-type per transition and its detail, from an accepted report.

The read model's recorder decides that a transition happened and hands the event to a publisher
(`docflow.events` holds the EventBridge one); both import these shapes from here, so the
recorder never reaches up into the publisher's module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, TypedDict

from docflow.cost import CostEstimate
from docflow.readmodel.detail import Moved
from docflow.readmodel.items import DocumentState, FieldValue
from docflow.readmodel.transitions import (
    APPROVED,
    ARCHIVED,
    FAILED,
    FINALIZED,
    PENDING_REVIEW,
    REJECTED,
    TIMED_OUT,
)

if TYPE_CHECKING:
    from docflow.readmodel.schema import Report

SOURCE = "docflow"
DETAIL_TYPES = {
    FINALIZED: "finalized",
    ARCHIVED: "archived",
    FAILED: "failed",
    PENDING_REVIEW: "review-requested",
    APPROVED: "review-decided",
    REJECTED: "review-decided",
    TIMED_OUT: "review-decided",
}
_SUMMARY = ("docType", "confidence", "pages", "engines", "sensitive", "lowConfidence")
_SUPPLIER = ("status", "supplierId", "name", "by", "certain")


class EventDetail(TypedDict, total=False):
    """A domain event's detail (docs/records.md): who, what, when, and by transition the
    summary, fields, supplier, cost and the version it replaces (finalized), the cost
    (archived), or the stage (review)."""

    eventId: str
    documentId: str
    version: str
    runId: str
    status: str
    at: str
    reason: str | None
    resultKey: str | None
    key: str | None
    summary: dict[str, object]  # docType, confidence, pages, engines, sensitive, lowConfidence
    fields: dict[str, FieldValue] | None
    supplier: dict[str, object]  # status, supplierId, name, by, certain
    bankDetails: object  # the bank-details check's verdict
    cost: CostEstimate | None
    replaces: dict[str, str]  # finalized: the finalized version this one replaces, if any
    # finalized: the invoice's match against its order (matched, the tolerances, who approved
    # it past a difference: docs/matching.md), when it cites one.
    match: dict[str, object]
    stageIndex: int | None
    stageName: str | None
    reviewDeadline: str | None
    decision: str
    decidedAt: str | None
    # Only when the whole detail would not fit an event: the moved attributes' S3 keys
    # ({attribute: {key, count}}, readmodel/detail.py); `fields` are then compact.
    detail: dict[str, Moved]


class EventPublisher(Protocol):
    def publish(self, detail_type: str, detail: EventDetail) -> None:
        """Send one event; raise if it was not accepted (the report is then retried)."""
        ...


def detail_type_for(status: str) -> str | None:
    return DETAIL_TYPES.get(status)


def event_detail(report: Report, state: DocumentState) -> EventDetail:
    """The event's detail: from the accepted report and the document's new state."""
    payload = report.payload
    detail: EventDetail = {
        "eventId": report.event_id,
        "documentId": report.document_id,
        "version": report.version,
        "runId": report.run_id,
        "status": report.status,
        "at": report.at,
        "reason": payload.get("reason") or None,
        "resultKey": payload.get("resultKey") or payload.get("archiveKey") or None,
        "key": state.get("key"),
    }
    if report.status == FINALIZED:
        detail["summary"] = {k: state.get(k) for k in _SUMMARY if k in state}
        detail["fields"] = state.get("fields")  # the extract step's fields, when it ran
        # Who issued it, so a system downstream onboards an unknown supplier before paying.
        if isinstance(supplier := state.get("supplier"), Mapping):
            detail["supplier"] = {
                k: v for k, v in supplier.items() if k in _SUPPLIER and v is not None
            }
        if isinstance(bank := state.get("bank"), Mapping):
            detail["bankDetails"] = bank.get("verdict")
        if isinstance(match := payload.get("match"), Mapping):
            detail["match"] = dict(match)
        detail["cost"] = state.get("cost")
        # A new version approved at `duplicate`: the finalized version to reverse.
        if isinstance(replaced := payload.get("replaces"), Mapping):
            detail["replaces"] = {str(k): str(v) for k, v in replaced.items()}
    elif report.status == ARCHIVED:
        detail["cost"] = state.get("cost")
    elif report.status in (PENDING_REVIEW, APPROVED, REJECTED, TIMED_OUT):
        detail["stageIndex"] = payload.get("stageIndex")
        detail["stageName"] = payload.get("stageName")
        if report.status == PENDING_REVIEW:
            detail["reviewDeadline"] = payload.get("reviewDeadline")
        else:
            detail["decision"] = report.status
            detail["decidedAt"] = payload.get("decidedAt")
    return detail
