"""The status recorder: the only writer of the read model.

Each report is decided against a consistent read of the document's current state, then written
as one transaction: the history item (only if its event id is new) and the new current state
(only if the state read is still the state stored: its `rev` is unchanged). A race with another
writer just means deciding again against the newer state, so late, duplicate and concurrent
reports never move a document backwards, and a run's reports in any order leave the same state
as in pipeline order. A payload too large for the items is first stored whole in S3 and kept
compact in them (`detail.py`), so a document's size never fails its report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict, cast

from botocore.exceptions import ClientError

from docflow import aws
from docflow.dynamo import condition_failed, transaction_condition_failed
from docflow.readmodel import detail
from docflow.readmodel.detail_store import ReportDetails
from docflow.readmodel.event_shapes import (
    EventDetail,
    EventPublisher,
    detail_type_for,
    event_detail,
)
from docflow.readmodel.items import DocumentState, FieldValue, HistoryItem
from docflow.readmodel.schema import Report
from docflow.readmodel.table import (
    ANNOUNCED_ATTRIBUTE,
    CHILD_FIELDS,
    STATE_SK,
    child_sk,
    doc_pk,
    from_ddb,
    history_sk,
    order_pk,
    to_ddb,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import PutTypeDef, QueryInputTypeDef

from docflow.readmodel.transitions import (
    AWAITING_MATCH,
    FAILED,
    FINALIZED,
    NOTES,
    PENDING_REVIEW,
    TERMINAL,
    is_allowed,
)

ACCEPTED, DUPLICATE, STALE = "accepted", "duplicate", "stale"
_MAX_RACES = 20
# An event's detail: EventBridge takes an entry of up to 256 KB, envelope included. A
# `finalized` event whose whole fields would pass this carries them compact, with their key.
EVENT_BYTES = 192 * 1024


class VerdictJson(TypedDict):
    """The recorder's answer to a report (the status recorder function's response)."""

    result: str  # accepted, duplicate or stale
    reason: str
    status: str | None  # the document's status after it


@dataclass(frozen=True)
class RecordVerdict:
    result: str
    reason: str = ""
    status: str | None = None

    def to_dict(self) -> VerdictJson:
        return {"result": self.result, "reason": self.reason, "status": self.status}


def decide(current: DocumentState | None, report: Report) -> tuple[str, str]:
    """Pure: does `report` move the current state? Returns (ACCEPTED|STALE, reason)."""
    if report.status in NOTES:
        return STALE, "a note joins the history only"
    if current is None:
        return ACCEPTED, "first report"
    if report.run_order > current["runOrder"]:
        return ACCEPTED, "newer run supersedes"
    if report.run_order < current["runOrder"] or report.run_id != current["runId"]:
        return STALE, "a newer run owns this document"
    if current["status"] in TERMINAL:
        return STALE, f"document is already {current['status']}"
    if report.seq <= int(current["seq"]):
        return STALE, "a later report of this run was already applied"
    if not is_allowed(current["status"], report.status):
        return STALE, f"transition {current['status']} -> {report.status} is not allowed"
    return ACCEPTED, "forward"


def next_state(current: DocumentState | None, report: Report) -> DocumentState:
    """The current-state item after applying an accepted report."""
    same_run = current is not None and current.get("runId") == report.run_id
    state = DocumentState(**current) if same_run and current else DocumentState()
    if report.status != PENDING_REVIEW:
        # One review stage's summary fields go once it is decided.
        for gone in ("reviewLinks", "reviewers", "reviewDeadline", "pendingPk", "pendingSince"):
            state.pop(gone, None)  # type: ignore[misc]
    if report.status != AWAITING_MATCH:
        state.pop("awaiting", None)  # what an invoice waited for, once it waits no more
    earlier = state.pop("detail", None)
    state.update(report.payload)
    state.pop("detail", None)
    if moved := detail.merged(earlier, report.payload, state):
        state["detail"] = moved
    state.update(
        DocumentState(
            pk=doc_pk(report.document_id),
            sk=STATE_SK,
            documentId=report.document_id,
            version=report.version,
            runId=report.run_id,
            runOrder=report.run_order,
            eventId=report.event_id,
            seq=report.seq,
            status=report.status,
            stage=report.stage,
            updatedAt=report.at,
        )
    )
    if report.status == PENDING_REVIEW:
        state.update(DocumentState(pendingPk="PENDING", pendingSince=report.at))
    if report.status in TERMINAL:
        state.pop("activePk", None)
    else:
        state["activePk"] = "ACTIVE"
    if report.status == FAILED:
        state.update(DocumentState(failedPk="FAILED", failedAt=report.at))
    else:
        state.pop("failedPk", None)
        state.pop("failedAt", None)
    state.setdefault("firstSeenAt", report.at)
    # A finalized purchase order is found by its number when an invoice cites it.
    number = (state.get("fields") or {}).get("po_number", FieldValue()).get("value")
    if report.status == FINALIZED and state.get("docType") == "purchase-order" and number:
        state["orderPk"] = order_pk(str(number))
    return state


def fold(reports: list[Report]) -> DocumentState | None:
    """The state a run's reports produce when applied in pipeline order, whatever order they
    arrived in. A late report is placed by re-folding its run's history with it."""
    state: DocumentState | None = None
    for report in sorted(reports, key=lambda r: r.seq):
        if decide(state, report)[0] == ACCEPTED:
            state = next_state(state, report)
    return state


def plan(
    current: DocumentState | None, report: Report, run_history: Callable[[], list[Report]]
) -> tuple[str, str, DocumentState | None]:
    """Pure: the verdict on `report` and the state to store (None: history only)."""
    verdict, reason = decide(current, report)
    if report.status in NOTES:
        return verdict, reason, None
    if verdict == ACCEPTED:
        return verdict, reason, next_state(current, report)
    late = (
        current is not None
        and report.run_id == current["runId"]
        and report.seq < int(current["seq"])
    )
    if not late:
        return verdict, reason, None  # an older run, or a refused transition
    assert current is not None
    state = fold([*run_history(), report])
    if state is None or state["eventId"] != current["eventId"]:
        # The late report contradicts where the run already is; a status never moves
        # backwards, so it only joins the history.
        return verdict, reason, None
    state["rev"] = current.get("rev", 0)
    if "announcedEventId" in current:  # the same transition: its event is still out
        state["announcedEventId"] = current["announcedEventId"]
    return verdict, reason, state


class StatusRecorder:
    def __init__(
        self,
        table_name: str,
        history_ttl_days: int = 365,
        publisher: EventPublisher | None = None,
        artifact_bucket: str | None = None,
    ) -> None:
        self.table = table_name
        self.ttl = timedelta(days=history_ttl_days)
        # docflow.events: announces each accepted terminal or review transition.
        self.publisher = publisher
        # Where a payload too large for the items goes (detail.py); the settings' bucket
        # unless named.
        self._bucket = artifact_bucket

    @property
    def _ddb(self) -> Any:
        return aws.client("dynamodb")

    @property
    def details(self) -> ReportDetails:
        if self._bucket is None:
            from docflow.settings import load_settings

            self._bucket = load_settings().artifact_bucket
        return ReportDetails(self._bucket)

    def record(self, report: Report) -> RecordVerdict:
        whole = report.payload
        report = self.details.fitted(report)  # the whole payload in S3 first if too large
        history = self._history_item(report)
        # What this report moved is read back from memory when its event is announced.
        seen = {k["key"]: whole for k in (report.payload.get("detail") or {}).values()}
        for _ in range(_MAX_RACES):
            current = self._current(report.document_id)
            verdict, reason, state = plan(current, report, lambda: self._run_history(report))
            try:
                self._write(history, state, current)
            except ClientError as exc:
                # The history item's condition (it is new) failed: a duplicate report; the
                # state's (it is as read) failed: another report landed first, decide again.
                if transaction_condition_failed(exc, 0) or condition_failed(exc):
                    self._announce_again(report, current, seen)
                    return RecordVerdict(DUPLICATE, "event already recorded", _status(current))
                if transaction_condition_failed(exc, 1):
                    continue
                raise
            if verdict == ACCEPTED:
                self._announce(report, state, seen)
                return RecordVerdict(ACCEPTED, reason, report.status)
            return RecordVerdict(STALE, reason, _status(current))
        raise RuntimeError("too many concurrent writers for one document; retry the report")

    def _announce(
        self,
        report: Report,
        state: DocumentState | None,
        seen: Mapping[str, Mapping[str, object]] | None = None,
    ) -> None:
        detail_type = detail_type_for(report.status)
        if self.publisher is None or detail_type is None or state is None:
            return
        self.publisher.publish(detail_type, self._event(report, state, seen or {}))
        self._mark_announced(report)

    def _event(
        self, report: Report, state: DocumentState, seen: Mapping[str, Mapping[str, object]]
    ) -> EventDetail:
        """The event's detail from the whole state (moved attributes read back); a detail too
        large for EventBridge keeps them compact and says where they are (`detail`)."""
        if not state.get("detail"):
            return event_detail(report, state)
        whole = detail.restore(state, self.details.loader(seen))
        said = event_detail(report, whole)
        if len(json.dumps(said, default=str)) <= EVENT_BYTES:
            return said
        said = event_detail(report, state)
        said["detail"] = dict(state.get("detail") or {})
        return said

    def _announce_again(
        self,
        report: Report,
        current: DocumentState | None,
        seen: Mapping[str, Mapping[str, object]] | None = None,
    ) -> None:
        # A second report of the document's current transition. Two senders report a review
        # decision with one event id (the callback API at once, the orchestrator when it
        # resumes): the second says nothing again. A retry whose first attempt stored the
        # transition and died before publishing (no mark) publishes; one that died between
        # publishing and marking publishes a copy, which consumers drop by eventId.
        if (
            current is not None
            and current.get("eventId") == report.event_id
            and current.get(ANNOUNCED_ATTRIBUTE) != report.event_id
        ):
            self._announce(report, current, seen)

    def _mark_announced(self, report: Report) -> None:
        """Note on the current state that its transition's event is out; `rev` is left alone,
        since no decision depends on the mark. A newer transition stored meanwhile (condition
        failed) has an event of its own, and no copy of this report is announced again."""
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": doc_pk(report.document_id), "sk": STATE_SK}),
                UpdateExpression="SET #announced = :id",
                ConditionExpression="eventId = :id",
                ExpressionAttributeNames={"#announced": ANNOUNCED_ATTRIBUTE},
                ExpressionAttributeValues=to_ddb({":id": report.event_id}),
            )
        except ClientError as exc:
            if not condition_failed(exc):
                raise

    def _write(
        self, history: HistoryItem, state: DocumentState | None, seen: DocumentState | None
    ) -> None:
        if state is None:
            self._ddb.put_item(**self._put_history(history))
            return
        state["rev"] = int(seen["rev"]) + 1 if seen else 1
        items = [{"Put": self._put_history(history)}, {"Put": self._put_state(state, seen)}]
        if state.get("parentId"):
            # A packet's part: its status beside its packet, in the same transaction, so the
            # packet's list of parts never disagrees with the parts' own states.
            items.append({"Put": self._put_child(state)})
        self._ddb.transact_write_items(TransactItems=items)

    def _current(self, document_id: str) -> DocumentState | None:
        answer = self._ddb.get_item(
            TableName=self.table,
            Key=to_ddb({"pk": doc_pk(document_id), "sk": STATE_SK}),
            ConsistentRead=True,
        )
        item = answer.get("Item")
        return cast("DocumentState", from_ddb(item)) if item else None

    def _run_history(self, report: Report) -> list[Report]:
        items: list[HistoryItem] = []
        args: QueryInputTypeDef = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :run)",
            "ExpressionAttributeValues": to_ddb(
                {":pk": doc_pk(report.document_id), ":run": f"EVENT#{report.run_order}#"}
            ),
            "ConsistentRead": True,
        }
        while True:
            answer = self._ddb.query(**args)
            items.extend(cast("HistoryItem", from_ddb(i)) for i in answer.get("Items", []))
            if "LastEvaluatedKey" not in answer:
                break
            args["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
        return [Report.parse(i) for i in items if i.get("runId") == report.run_id]

    def _history_item(self, report: Report) -> HistoryItem:
        expires = datetime.fromisoformat(report.at) + self.ttl
        item = report.to_dict()
        item.update(
            HistoryItem(
                pk=doc_pk(report.document_id),
                sk=history_sk(report.run_order, report.seq, report.event_id),
                expiresAt=int(expires.timestamp()),
            )
        )
        return item

    def _put_history(self, history: HistoryItem) -> PutTypeDef:
        return {
            "TableName": self.table,
            "Item": to_ddb(history),
            "ConditionExpression": "attribute_not_exists(pk)",
        }

    def _put_child(self, state: DocumentState) -> PutTypeDef:
        mirror = {k: v for k, v in state.items() if k in CHILD_FIELDS and v is not None}
        item = {"pk": doc_pk(str(state["parentId"])), "sk": child_sk(state["documentId"])}
        return {"TableName": self.table, "Item": to_ddb({**item, **mirror})}

    def _put_state(self, state: DocumentState, seen: DocumentState | None) -> PutTypeDef:
        # Optimistic concurrency: the state decided on must still be the stored one.
        if seen is None:
            return {
                "TableName": self.table,
                "Item": to_ddb(state),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        return {
            "TableName": self.table,
            "Item": to_ddb(state),
            "ConditionExpression": "rev = :seen",
            "ExpressionAttributeValues": to_ddb({":seen": int(seen["rev"])}),
        }


def _status(current: DocumentState | None) -> str | None:
    return current.get("status") if current else None
