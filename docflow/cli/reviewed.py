"""What the reviews of a document's current run did, read back from its history: each review
stage (the ones planned at classify and the ones the run added later, a `duplicate` after a
corrected total, say) with what became of it, and the key fields with every approved correction
in place.

Why from the history and not the current state: the state's `stages` is the route the
`classified` report planned and its `fields` are what the engine read; the run reports a stage
it adds, and each decision's corrections, in reports of their own, and the state takes the
corrected fields only from the `finalized` report. Until then the history is where they are.
Pure functions over what `ReadModel.show` answered; nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from docflow.readmodel.items import DocumentState, FieldValue, HistoryItem
from docflow.readmodel.transitions import APPROVED, PENDING_REVIEW, REJECTED, TIMED_OUT

WAITING, PLANNED = "waiting", "planned"
_DECIDED = (APPROVED, REJECTED, TIMED_OUT)


class StageShown(TypedDict, total=False):
    """One review stage of the current run, as `show --json` gives it under `stages`."""

    index: int
    name: str
    status: str  # planned | waiting | approved | rejected | timed-out
    addedLater: bool  # not in the route the `classified` report planned
    reviewers: list[str]
    reviewer: str  # who decided
    decidedAt: str
    rejectReason: str
    comment: str
    corrected: list[str]  # the fields the decision corrected


def run_reports(state: DocumentState, history: Sequence[HistoryItem]) -> list[HistoryItem]:
    """The history's reports of the run the state is on (an older version's runs are not this
    document's reviews any more)."""
    run = state.get("runId")
    return [h for h in history if not run or h.get("runId") == run]


def stages_shown(state: DocumentState, history: Sequence[HistoryItem]) -> list[StageShown]:
    """Every review stage of the current run, in order: planned at classify (as the state's
    `stages` recorded them), or added later (known from the stage's own reports), each with
    its last word: waiting on whom, or decided by whom, when and how."""
    stages: dict[int, StageShown] = {}
    for i, planned in enumerate(state.get("stages") or []):
        name = planned.get("name") if isinstance(planned, Mapping) else planned
        stages[i] = StageShown(index=i, name=str(name), status=PLANNED)
    for report in run_reports(state, history):
        payload = report.get("payload") or {}
        index = payload.get("stageIndex")
        status = report.get("status")
        if not isinstance(index, int) or status not in (PENDING_REVIEW, *_DECIDED):
            continue
        shown = stages.get(index) or StageShown(index=index, addedLater=True)
        shown["name"] = str(payload.get("stageName") or shown.get("name") or f"review-{index}")
        if status == PENDING_REVIEW:
            shown["status"] = WAITING
            shown["reviewers"] = list(payload.get("reviewers") or [])
        else:
            shown["status"] = str(status)
            said = {k: payload.get(k) for k in ("reviewer", "decidedAt", "rejectReason", "comment")}
            shown.update({k: str(v) for k, v in said.items() if v})  # type: ignore[typeddict-item]
            corrected = sorted(payload.get("corrections") or {})
            if corrected:
                shown["corrected"] = corrected
        stages[index] = shown
    return [stages[i] for i in sorted(stages)]


def fields_shown(
    state: DocumentState, history: Sequence[HistoryItem]
) -> dict[str, FieldValue] | None:
    """The key fields as they stand: the state's, with each approved decision's corrections of
    the current run applied in order, as the run applies them (`pipeline.extract.
    apply_corrections`: the first value read kept as `original`, who corrected it and when).
    A finalized state already holds them, and comes out unchanged. None: no fields."""
    fields = state.get("fields")
    if fields is None:
        return None
    out: dict[str, FieldValue] = {k: FieldValue(**v) for k, v in fields.items()}
    for report in run_reports(state, history):
        payload: Mapping[str, Any] = report.get("payload") or {}
        if report.get("status") != APPROVED or not payload.get("corrections"):
            continue
        for name, said in sorted(payload["corrections"].items()):
            out[name] = _corrected(out.get(name) or FieldValue(), said, payload)
    return out


def _corrected(old: FieldValue, said: Mapping[str, Any], decision: Mapping[str, Any]) -> FieldValue:
    """One field after one correction (`describe_corrections`' shape: the new value, a
    table's rows, the value it replaced)."""
    new = FieldValue(value=str(said.get("value") or ""), confidence=1.0, page=old.get("page", 0))
    if isinstance(said.get("rows"), list):
        new["rows"] = [dict(r) for r in said["rows"]]
    if old.get("box"):
        new["box"] = old["box"]
    new["original"] = old["original"] if "original" in old else said.get("original")
    new["correctedBy"] = str(decision.get("reviewer") or "")
    new["correctedAt"] = str(decision.get("decidedAt") or "")
    return new


def stage_lines(stages: Sequence[StageShown]) -> list[str]:
    """`show`'s stages block: a line a stage, under the `stages` label."""
    lines: list[str] = []
    for s in stages:
        said = _stage_said(s)
        lines.append(f"{'stages' if not lines else '':11} {s.get('name')}: {said}")
    return lines


def _stage_said(s: StageShown) -> str:
    status = s.get("status", PLANNED)
    if status == PLANNED:
        said = "not reached yet"
    elif status == WAITING:
        said = f"waiting on {', '.join(s.get('reviewers') or []) or '-'}"
    elif status == TIMED_OUT:
        said = "timed out" + (f" at {s['decidedAt']}" if s.get("decidedAt") else "")
    else:
        said = f"{status} by {s.get('reviewer') or '-'}"
        said += f" at {s['decidedAt']}" if s.get("decidedAt") else ""
    notes = []
    if s.get("corrected"):
        notes.append(f"corrected {', '.join(s['corrected'])}")
    if s.get("rejectReason"):
        notes.append(f"reason {s['rejectReason']}")
    if s.get("comment"):
        notes.append(f"comment: {s['comment']}")
    if s.get("addedLater"):
        notes.append("added by the run after classify")
    return said + (f" ({'; '.join(notes)})" if notes else "")
