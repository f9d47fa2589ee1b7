"""Domain events for downstream systems: one EventBridge event per terminal or review transition.

Who publishes: the status recorder, right after its transaction accepted a report. It is the
one writer of the read model and the one place that knows a transition happened (a late,
duplicate or superseded report is refused there and announces nothing), and it sees the
document's whole state, so a `finalized` event can carry the summary without another read.
Publishing from an orchestrator step instead would announce transitions the read model then
refuses (a superseded run's archive), and would leave the reconcile pass's `failed` unsaid.

Exactly once is not on offer: EventBridge's PutEvents takes no idempotency key. The event's
`detail.eventId` is the report's event id, fixed by the run and the report's position, so
every copy of one transition carries the same id. A copy happens only when the recorder
stored the transition and failed before or while publishing: the report's sender retries,
the recorder finds the report already stored with the document still at that transition,
and publishes again. Consumers de-duplicate on `detail.eventId` (a conditional put of the id
with a TTL is enough); `docflow events` shows how, locally.

Nothing in an event is a link, a token or a reviewer's address: ids, statuses, reasons,
S3 keys of the result, counts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from docflow import aws, observability
from docflow.readmodel.transitions import (
    APPROVED,
    ARCHIVED,
    FAILED,
    FINALIZED,
    PENDING_REVIEW,
    REJECTED,
    TIMED_OUT,
)

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


class EventPublisher(Protocol):
    def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        """Send one event; raise if it was not accepted (the report is then retried)."""
        ...


class EventBridgePublisher:
    def __init__(self, bus_name: str) -> None:
        self.bus_name = bus_name

    def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        answer = aws.client("events").put_events(
            Entries=[
                {
                    "EventBusName": self.bus_name,
                    "Source": SOURCE,
                    "DetailType": detail_type,
                    "Detail": json.dumps(detail, sort_keys=True, default=str),
                }
            ]
        )
        if answer.get("FailedEntryCount"):
            entry = (answer.get("Entries") or [{}])[0]
            raise RuntimeError(
                f"EventBridge refused the {detail_type} event: {entry.get('ErrorCode')}"
            )
        observability.count("DomainEventsPublished", detailType=detail_type)


def build_publisher(bus_name: str) -> EventPublisher | None:
    return EventBridgePublisher(bus_name) if bus_name else None


def detail_type_for(status: str) -> str | None:
    return DETAIL_TYPES.get(status)


def event_detail(report: Any, state: Mapping[str, Any]) -> dict[str, Any]:
    """The event's detail: from the accepted report and the document's new state."""
    payload = report.payload
    detail: dict[str, Any] = {
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
        detail["summary"] = {k: state[k] for k in _SUMMARY if k in state}
        detail["fields"] = state.get("fields")  # the extract step's fields, when it ran
        detail["cost"] = state.get("cost")
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
