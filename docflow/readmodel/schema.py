"""The status report: what every part sends the recorder, and its validation.

A report carries summary fields from a fixed list, never page text, never a detector's matched
value, never a token or callback id. Its size never fails a document: what does not fit the
read model's item goes to S3 (`detail.py`), so a report is refused only past WIRE_BYTES.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, cast

from docflow.ids import event_id
from docflow.readmodel.detail import DETAIL, WIRE_BYTES, check_detail
from docflow.readmodel.items import HistoryItem, Payload
from docflow.readmodel.transitions import NOTES, STATUSES, seq_for

_ID_RE = re.compile(r"^[A-Za-z0-9._:#-]{1,128}$")
_TOKEN_SHAPE = re.compile(r"v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{43}")
# Summary fields a report may carry; anything else is refused (keeps text and secrets out).
PAYLOAD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "bucket": str,
    "key": str,
    "etag": str,
    # The function version the execution started on (and every resume runs): "1", "2", ...
    # in AWS and on the local stack, "$LATEST" when it was invoked without a version.
    "functionVersion": str,
    "pages": int,
    "bytes": int,
    "batches": int,
    "engines": dict,
    "docType": str,
    "confidence": (int, float, str),
    "sensitive": dict,
    "activeContent": list,  # ["javascript", "unknown", ...]: docflow/active_content.py
    # An e-invoice's small object (docs/einvoice.md): key, source, syntax, type code, the
    # lines' count and sum, validity and the fatal rules' ids; never the lines.
    "einvoice": dict,
    "lowConfidence": bool,
    "stages": list,
    "stageIndex": int,
    "stageName": str,
    "reviewers": list,
    "reviewLinks": list,  # [{"reviewer", "linkId"}]: a link id is a short hash, never a link
    "reviewDeadline": str,
    "decision": str,
    "reviewer": str,
    "comment": str,
    "rejectReason": str,
    "decidedAt": str,
    "votes": list,  # [{"reviewer", "decision", "at"}]: every vote of a stage, oldest first
    "reason": str,
    "message": str,
    "resultKey": str,
    "archiveKey": str,
    "cost": dict,  # docflow.cost.estimate: counts and dollars, no text
    # Extracted key fields {name: {value, confidence, page[, original, correctedBy, ...]}},
    # the checks that sent them to a person, and a decision's corrections.
    "fields": dict,
    "fieldChecks": list,
    "corrections": dict,
    # The supplier registry's part (docflow.suppliers.hook): who issued it and how it was
    # matched, each IBAN masked with whose it was judged, the checked tax ids found, and the
    # fields the supplier's profile read.
    "supplier": dict,
    # The learned layout the page is {status, layoutId, score, issuer} (docflow.suppliers.hook):
    # no value it read (its shadow read stays in the run).
    "layout": dict,
    # A reviewer's "add this supplier": the proposal filed {proposalId, name, status,
    # conflict} (docflow.suppliers.proposals), or why none was.
    "supplierProposed": dict,
    "supplierNotAdded": str,
    "ibans": list,
    # The bank-details check (docflow.suppliers.bank): its verdict, the printed payee accounts
    # and the supplier's registered ones, masked to the last four, with their banks.
    "bank": dict,
    "taxIds": list,
    "profileFields": list,
    # Duplicate invoices (docflow.pipeline.duplicates): the claim items this version holds
    # (digests, no text) and the earlier documents holding one of its keys [{documentId,
    # status, number, date, total, currency, vendor, key, by}].
    "duplicateKeys": list,
    "duplicateOf": list,
    # A finalized new version approved at `duplicate`: the finalized version it replaces
    # {documentId, version, resultKey}, so a payment system reverses the first.
    "replaces": dict,
    # An invoice waiting for its order or receipt {kind, order, supplier, deadline, receipts}
    # (while `awaiting-match`), and its match against the order (docs/matching.md: numbers,
    # codes, the differences' messages, document ids; no page text).
    "awaiting": dict,
    "match": dict,
    # The enrich step's small part: {title, abstract}, {level, reasons [{code, message,
    # page}]} (masked, never a detector's matched value) and how it was made
    # {mode, engine, status, key, jobId?, reason?}.
    "summary": dict,
    "risk": dict,
    "enrichment": dict,
    # Packets (docs/packets.md): a packet's parts and how many could not be written; a part's
    # packet (its document and run) and its pages in the packet, [first, last].
    "parts": int,
    "partsFailed": int,
    "parentId": str,
    "parentRunId": str,
    "parentPages": list,
    "parentKey": str,  # the packet's key: a part is named after its file (docflow.ids)
    # Set by the recorder, never by a sender: the attributes of a payload too large for the
    # read model's item that were moved to S3 ({attribute: {key, count}}, detail.py).
    DETAIL: dict,
}
CAUSES = ("orchestrator", "callback-api", "starter", "operator", "external", "reconciler")


class ReportError(ValueError):
    """A malformed report. `field` names what is wrong; nothing was written."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


@dataclass(frozen=True)
class Report:
    document_id: str
    version: str
    run_id: str
    run_order: str
    event_id: str
    stage: str
    status: str
    seq: int
    at: str
    cause: str = "orchestrator"
    payload: Payload = field(default_factory=Payload)

    def to_dict(self) -> HistoryItem:
        return {
            "documentId": self.document_id,
            "version": self.version,
            "runId": self.run_id,
            "runOrder": self.run_order,
            "eventId": self.event_id,
            "stage": self.stage,
            "status": self.status,
            "seq": self.seq,
            "at": self.at,
            "cause": self.cause,
            "payload": self.payload,
        }

    @classmethod
    def parse(cls, raw: Any) -> Report:
        """Validate a report from the wire; raises ReportError naming the bad field."""
        if not isinstance(raw, dict):
            raise ReportError("report", "must be a JSON object")
        document_id, version = _id(raw, "documentId"), _id(raw, "version")
        run_id, event = _id(raw, "runId"), _id(raw, "eventId")
        run_order = raw.get("runOrder")
        if not isinstance(run_order, str) or not re.fullmatch(
            r"[0-9A-F]{32}:\d{13}:\d{6}", run_order
        ):
            raise ReportError("runOrder", "must look like <32 hex>:<13 digits>:<6 digits>")
        status = raw.get("status")
        if status not in STATUSES and status not in NOTES:
            raise ReportError("status", f"must be one of {', '.join((*STATUSES, *NOTES))}")
        stage = raw.get("stage")
        if not isinstance(stage, str) or not 0 < len(stage) <= 64:
            raise ReportError("stage", "is required, at most 64 characters")
        seq = raw.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= 1_000_000:
            raise ReportError("seq", "must be an integer 0..1000000")
        at = raw.get("at")
        try:
            parsed_at = datetime.fromisoformat(str(at))
        except ValueError:
            raise ReportError("at", "must be an ISO 8601 time") from None
        if parsed_at.tzinfo is None:
            raise ReportError("at", "must carry a time zone")
        cause = raw.get("cause", "orchestrator")
        if cause not in CAUSES:
            raise ReportError("cause", f"must be one of {', '.join(CAUSES)}")
        payload = raw.get("payload", {})
        _check_payload(payload, document_id)  # every field known, of its type
        return cls(
            document_id=document_id,
            version=version,
            run_id=run_id,
            event_id=event,
            run_order=run_order,
            status=status,
            stage=stage,
            seq=seq,
            at=parsed_at.astimezone(UTC).isoformat(timespec="milliseconds"),
            cause=cause,
            payload=cast("Payload", payload),
        )


def _id(raw: Mapping[str, object], name: str) -> str:
    """One of the report's ids: a non-empty string of the characters an id may have (a
    version, S3's, any but a length)."""
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ReportError(name, "is required and must be a non-empty string")
    if len(value) > 1024 or (name != "version" and not _ID_RE.match(value)):
        raise ReportError(name, "has characters or a length not allowed")
    return value


def _check_payload(payload: Any, document_id: str) -> None:
    if not isinstance(payload, dict):
        raise ReportError("payload", "must be a JSON object")
    for name, value in payload.items():
        expected = PAYLOAD_FIELDS.get(name)
        if expected is None:
            raise ReportError(f"payload.{name}", "is not a known summary field")
        if isinstance(value, bool) and expected is not bool:
            raise ReportError(f"payload.{name}", "has the wrong type")
        if not isinstance(value, expected):
            raise ReportError(f"payload.{name}", "has the wrong type")
    if DETAIL in payload and (problem := check_detail(payload[DETAIL], document_id)):
        raise ReportError(f"payload.{DETAIL}", problem)
    encoded = json.dumps(payload)
    if len(encoded) > WIRE_BYTES:
        raise ReportError("payload", f"is over {WIRE_BYTES} bytes")
    # A working review link is a bearer credential: the read model is readable by every
    # operator, so a report that would carry one is refused outright.
    if _TOKEN_SHAPE.search(encoded):
        raise ReportError("payload", "must not carry a review link or token")


def stage_label(report: HistoryItem) -> str:
    """A history row's stage as people read it: a review stage by its name (`legal`), not its
    slot (`review-0`). `docflow show` and the dashboard's document page both print it."""
    name = (report.get("payload") or {}).get("stageName")
    return str(name) if name else str(report.get("stage", ""))


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class RunIdentity(Protocol):
    """What a report needs to know about its run; a DocumentRef is one."""

    @property
    def document_id(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def run_id(self) -> str: ...
    @property
    def run_order(self) -> str: ...


@dataclass(frozen=True)
class RunIds:
    document_id: str
    version: str
    run_id: str
    run_order: str


def make_report(
    doc: RunIdentity,
    status: str,
    stage: str,
    *,
    payload: Mapping[str, Any] | None = None,
    stage_index: int | None = None,
    cause: str = "orchestrator",
    at: str | None = None,
) -> Report:
    """A report for one pipeline position; its event id is stable across retries and replays."""
    seq = seq_for(status, stage_index)
    return Report(
        document_id=doc.document_id,
        version=doc.version,
        run_id=doc.run_id,
        run_order=doc.run_order,
        event_id=event_id(doc.run_id, str(seq), status),
        stage=stage,
        status=status,
        seq=seq,
        at=at or now_iso(),
        cause=cause,
        # Checked field by field where it arrives (Report.parse at the recorder).
        payload=cast("Payload", dict(payload or {})),
    )
