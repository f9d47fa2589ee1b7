"""Domain events for downstream systems: one EventBridge event per terminal or review transition.

Who publishes: the status recorder, right after its transaction accepted a report. It is the
one writer of the read model and the one place that knows a transition happened (a late,
duplicate or superseded report is refused there and announces nothing), and it sees the
document's whole state, so a `finalized` event can carry the summary without another read.
Publishing from an orchestrator step instead would announce transitions the read model then
refuses (a superseded run's archive), and would leave the reconcile pass's `failed` unsaid.

Exactly once is not on offer: EventBridge's PutEvents takes no idempotency key. The event's
`detail.eventId` is the report's event id, fixed by the run and the report's position, so
every copy of one transition carries the same id. The recorder notes on the document's state
which event it published, so a second sender's report of one transition (a review decision:
the callback API's, then the orchestrator's) announces nothing. A copy happens only when the
recorder stored the transition and failed before noting the event out: the report's sender
retries, the recorder finds the report already stored with the document still at that
transition and no note, and publishes again. Consumers de-duplicate on `detail.eventId` (a
conditional put of the id with a TTL is enough); `docflow events` shows how, locally.

Nothing in an event is a link, a token or a reviewer's address: ids, statuses, reasons,
S3 keys of the result, counts.
"""

from __future__ import annotations

import json

from docflow import aws, observability
from docflow.readmodel.event_shapes import SOURCE, EventDetail, EventPublisher


class EventBridgePublisher:
    def __init__(self, bus_name: str) -> None:
        self.bus_name = bus_name

    def publish(self, detail_type: str, detail: EventDetail) -> None:
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
