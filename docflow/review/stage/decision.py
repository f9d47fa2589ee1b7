"""A review stage's decision: the one record every side builds and reads.

The desk makes it from a page's form or a machine's body, the stage record keeps its vote and
its ending, the callback carries it to the execution as `to_json()`, and the orchestrator reads
it back with `parse`. Its JSON keeps the names the callbacks, the links table and the history
have always used (`approved`, `reviewer`, `comment`, `decidedAt`, and when they say something
`rejectReason`, `docType`, `corrections`, `votes`, `quorum`, a split stage's `parts`, and
`addSupplier` when a fields reviewer asks for the issuer to be registered), so
recorded executions and stored items read the same.

In `stage` (the review room's ground floor) so that the room and the pipeline may both import
it; the room may not import the pipeline.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, cast

from docflow.extract.checks.corrections import Correction, validate_corrections
from docflow.extract.declarations.model import TypeDecl
from docflow.review.stage.split import clean_parts, split_problem
from docflow.review.stage.stage_record import (
    DecisionJson,
    DecisionRecord,
    Ending,
    HistoryVote,
    StoredVote,
)
from docflow.review.stage.triage import UNCLASSIFIABLE, type_problem

MAX_REVIEWER, MAX_COMMENT, MAX_AT, MAX_REASON = 200, 1000, 40, 40
MAX_VOTES = 50


class DecisionError(ValueError):
    """A decision that cannot stand. `field` names what is wrong; `decision` is the rest of it
    read as a rejection, so whoever reads it can still say who sent what."""

    def __init__(
        self,
        field_name: str,
        message: str,
        decision: Decision,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.decision = decision
        self.errors = dict(errors or {})  # per corrected field, for `corrections`


@dataclass(frozen=True)
class Decision:
    approved: bool
    reviewer: str = ""
    comment: str = ""
    decided_at: str = ""
    reject_reason: str = ""  # with a rejection only
    doc_type: str = ""  # a triage reviewer's pick, with an approval only
    corrections: Mapping[str, Correction] = field(default_factory=dict)  # validated, approved
    votes: tuple[HistoryVote, ...] = ()  # every vote of the stage, as the history keeps it
    quorum: int | None = None  # the stage's quorum, when the stage record decided
    # A split stage's approval: the packet's parts, [first, last] pages each, checked.
    parts: tuple[tuple[int, int], ...] = ()
    # A fields reviewer's "add this supplier": register the issuer with the checked ids the
    # document prints (with an approval only).
    add_supplier: bool = False

    @classmethod
    def made(
        cls,
        approved: bool,
        reviewer: str,
        comment: str,
        reason: str = "",
        corrections: Mapping[str, Correction] | None = None,
        doc_type: str = "",
        parts: Sequence[Sequence[int]] | None = None,
        add_supplier: bool = False,
    ) -> Decision:
        """A decision made now, by a reviewer on a page or a service (the desk's). The page's
        comment comes stripped; a service's is kept as it sent it, cut to length."""
        return cls(
            approved=approved,
            reviewer=reviewer,
            comment=comment[:MAX_COMMENT],
            decided_at=datetime.now(UTC).isoformat(timespec="seconds"),
            reject_reason="" if approved else reason,
            doc_type=doc_type if approved else "",
            corrections=dict(corrections or {}) if approved else {},
            parts=_parts(parts) if approved else (),
            add_supplier=approved and add_supplier,
        )

    @classmethod
    def parse(
        cls,
        raw: Any,
        choices: Sequence[str] | None = None,
        split_pages: int | None = None,
        decl: TypeDecl | None = None,
    ) -> Decision:
        """The decision from the wire (JSON text, bytes or a dict); raises `DecisionError`
        naming the field that makes it invalid. Long strings are cut, never refused.

        `split_pages`: a split stage's page count (None for any other stage). A split approval
        must carry `parts` that hold every page once, in order; `parts` on any other stage
        makes the decision invalid.

        `choices`: the types a triage stage offers (None for any other stage). A triage
        approval must name one of them as `docType`; a `docType` on any other stage, or a
        corrected field that does not validate, makes the decision invalid, whoever sent it:
        the page and the callback API checked them already, but a machine callback or a bug
        must not route or finalize a document on an unchecked value.

        `decl`: the fields the document's type declares; each correction is checked by its
        kind, a table's as its rows (without one, the rules engine's built-in fields)."""
        if isinstance(raw, bytes | bytearray):
            raw = raw.decode("utf-8", "replace")
        value = raw
        if isinstance(raw, str):
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
        if not isinstance(value, dict) or not isinstance(value.get("approved"), bool):
            raise DecisionError("approved", "must be true or false", cls(approved=False))
        decision = cls(
            approved=value["approved"],
            reviewer=str(value.get("reviewer", ""))[:MAX_REVIEWER],
            comment=str(value.get("comment", ""))[:MAX_COMMENT],
            decided_at=str(value.get("decidedAt", ""))[:MAX_AT],
            reject_reason=""
            if value["approved"] or not value.get("rejectReason")
            else str(value["rejectReason"])[:MAX_REASON],
            votes=_votes(value.get("votes")),
            add_supplier=value["approved"] and value.get("addSupplier") is True,
        )
        if "corrections" in value:
            corrections, errors = validate_corrections({}, value["corrections"], decl)
            if errors:
                rejected = replace(decision, approved=False)
                raise DecisionError("corrections", "a value does not validate", rejected, errors)
            decision = replace(decision, corrections=corrections)
        return _with_parts(_with_type(decision, value, choices), value, split_pages)

    @classmethod
    def stored(cls, item: Mapping[str, Any]) -> Decision:
        """A decision this code wrote (a stage's ending: `{"how", ...to_json(), "at"}`), read
        back as it was written: it was checked when it was made, and the stage's type choices
        are not stored beside it, so nothing is checked again here."""
        quorum = item.get("quorum")
        return cls(
            approved=bool(item.get("approved")),
            reviewer=str(item.get("reviewer", "")),
            comment=str(item.get("comment", "")),
            decided_at=str(item.get("decidedAt", "")),
            reject_reason=str(item.get("rejectReason") or ""),
            doc_type=str(item.get("docType") or ""),
            corrections=dict(item.get("corrections") or {}),
            votes=_votes(item.get("votes")),
            quorum=int(quorum) if quorum is not None else None,
            parts=_parts(item.get("parts")),
            add_supplier=item.get("addSupplier") is True,
        )

    def wire(self) -> bytes:
        """The callback's Result: `to_json()` as the execution reads it back with `parse`."""
        return json.dumps(self.to_json()).encode("utf-8")

    def to_json(self) -> DecisionJson:
        """The wire and storage shape; a key that says nothing is left out."""
        out: DecisionJson = {
            "approved": self.approved,
            "reviewer": self.reviewer,
            "comment": self.comment,
            "decidedAt": self.decided_at,
        }
        # In the stage ending's order (it is stored, and checkpointed by `settle`).
        if self.votes:
            out["votes"] = [v.copy() for v in self.votes]
        if self.quorum is not None:
            out["quorum"] = self.quorum
        if self.reject_reason:
            out["rejectReason"] = self.reject_reason
        if self.doc_type:
            out["docType"] = self.doc_type
        if self.corrections:
            out["corrections"] = dict(self.corrections)
        if self.parts:
            out["parts"] = [list(p) for p in self.parts]
        if self.add_supplier:
            out["addSupplier"] = True
        return out

    def as_vote(self) -> StoredVote:
        """What the stage record keeps of one reviewer's vote."""
        vote: StoredVote = {"approved": self.approved, "comment": self.comment}
        if self.reject_reason:
            vote["rejectReason"] = self.reject_reason
        if self.corrections:
            vote["corrections"] = dict(self.corrections)
        if self.doc_type:
            vote["docType"] = self.doc_type
        if self.parts:
            vote["parts"] = [list(p) for p in self.parts]
        if self.add_supplier:
            vote["addSupplier"] = True
        vote["at"] = self.decided_at
        return vote

    def as_ending(self) -> Ending:
        """The register's ending for a link that decides alone (no stage record)."""
        return {
            "how": "decided",
            "approved": self.approved,
            "reviewer": self.reviewer,
            "decidedAt": self.decided_at,
        }

    def as_history(self) -> DecisionRecord:
        """What the history keeps of the decision besides its status, reason and corrections:
        who, when, the votes and the pick, each when it says something."""
        said = {
            "reviewer": self.reviewer,
            "comment": self.comment,
            "decidedAt": self.decided_at,
            "rejectReason": self.reject_reason,
            "votes": [v.copy() for v in self.votes],
            "docType": self.doc_type,
        }
        return cast("DecisionRecord", {k: v for k, v in said.items() if v})


def machine_pick(
    decision: Decision, body: Mapping[str, Any], choices: Collection[str]
) -> tuple[Decision, str]:
    """A machine callback's decision with its triage pick, or a problem (the API answers 400).

    A `docType` on a link that is not triage's is refused; on a triage link an approval needs
    one, and `unclassifiable` turns it into the rejection that archives the document."""
    if not choices:
        return decision, ("docType is only for a triage stage" if "docType" in body else "")
    if not decision.approved:
        return decision, ""
    problem = type_problem(body.get("docType"), choices)
    if problem:
        return decision, f"{problem}: {', '.join(sorted(choices))} or {UNCLASSIFIABLE}"
    if body["docType"] == UNCLASSIFIABLE:
        return replace(decision, approved=False, reject_reason=UNCLASSIFIABLE), ""
    return replace(decision, doc_type=str(body["docType"])), ""


def _with_type(
    decision: Decision, value: Mapping[str, object], choices: Sequence[str] | None
) -> Decision:
    """The triage pick, checked again here (the callback API checked it already). `value`:
    the decision's JSON as it came, anything in it."""
    if choices is None:
        if "docType" in value:
            rejected = replace(decision, approved=False)
            raise DecisionError("docType", "not triage", rejected)
        return decision
    if not decision.approved:
        return decision  # "none of these" is a rejection for `unclassifiable`
    problem = type_problem(value.get("docType"), choices, allow_none=False)
    if problem:
        raise DecisionError("docType", problem, replace(decision, approved=False))
    return replace(decision, doc_type=str(value["docType"]))


def _with_parts(decision: Decision, value: Mapping[str, object], pages: int | None) -> Decision:
    """A split stage's parts, checked again here (the page and the callback API did)."""
    if pages is None:
        if "parts" in value:
            raise DecisionError("parts", "not a split stage", replace(decision, approved=False))
        return decision
    if not decision.approved:
        return decision
    problem = split_problem(value.get("parts"), pages)
    if problem:
        raise DecisionError("parts", problem, replace(decision, approved=False))
    return replace(decision, parts=_parts(clean_parts(value["parts"])))


def _parts(parts: Sequence[Sequence[int]] | None) -> tuple[tuple[int, int], ...]:
    return tuple((int(p[0]), int(p[1])) for p in parts or ())


def _votes(raw: Any) -> tuple[HistoryVote, ...]:
    """Every vote of a stage, as the history records it: {reviewer, decision, at}."""
    if not isinstance(raw, list):
        return ()
    out: list[HistoryVote] = []
    for vote in raw[:MAX_VOTES]:
        if isinstance(vote, dict) and vote.get("decision") in ("approved", "rejected"):
            entry: HistoryVote = {
                "reviewer": str(vote.get("reviewer", ""))[:MAX_REVIEWER],
                "decision": str(vote["decision"]),
                "at": str(vote.get("at", ""))[:MAX_AT],
            }
            if vote.get("comment"):
                entry["comment"] = str(vote["comment"])[:200]
            if vote.get("rejectReason"):
                entry["rejectReason"] = str(vote["rejectReason"])[:200]
            out.append(entry)
    return tuple(out)


def unclassifiable(decision: Decision, choices: Sequence[str] | None) -> bool:
    """Triage's "none of these": a rejection that archives the document as unclassifiable."""
    return (
        choices is not None and not decision.approved and decision.reject_reason == UNCLASSIFIABLE
    )
