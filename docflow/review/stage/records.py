"""The stage record: one review stage of one run, its votes, and how it ended.

One item per (run, stage) in the links table:

    STAGE#<runId>#<stage index>   the run and stage; `reviewers` (the originals, plus the
                                  escalation reviewers once escalated); `quorum` and
                                  `rejectLimit` (the rejections the stage can take and still
                                  approve); `approvals`, `rejections` and `votes` (reviewer ->
                                  approved, at, comment, rejectReason, corrections, a
                                  triage pick's docType); `links` (token hashes,
                                  so a newer run can close them); `callbackId`, `round` and
                                  `roundEndsAt` of the execution's CURRENT wait; `deadline`; and,
                                  once known, `ending` (decided, timed-out or superseded)

Votes are durable data and the callback is only a wake-up: a vote is written here first, once
per reviewer and only while the tally is still open (one conditional update compares the counts
with `quorum` and `rejectLimit`), so exactly one vote can cross the line, a click racing a timer
is counted once, and a vote that lands while the execution is between two waits is found by its
next wait (whose registration is refused once an ending exists) or by the stage's last step.
An ending, once written (or found written), takes the stage out of its reviewers' inboxes
(`docflow.review.stage.inbox`), in the same step or request. Nothing stored is a working link: link
pks are SHA-256 hashes of tokens. The item is the
register's "wait" for this stage too (`register.add_wait` lists its pk as an open wait).
"""

from __future__ import annotations

import time
from typing import Any

from docflow import aws
from docflow.dynamo import ConditionFailed, Table, to_ddb
from docflow.review.stage.decision import Decision
from docflow.review.stage.inbox import InboxIndex
from docflow.review.stage.stage_record import (
    Ending,
    HistoryVote,
    StageIds,
    StageRecord,
    StoredVote,
    Tally,
)

KEEP_S = 30 * 24 * 3600
DECIDED, TIMED_OUT, SUPERSEDED = "decided", "timed-out", "superseded"


def stage_pk(run_id: str, stage_index: int) -> str:
    return f"STAGE#{run_id}#{stage_index}"


class StageClosed(Exception):
    """The stage already has an ending (or its tally is already decided)."""

    def __init__(self, item: StageRecord) -> None:
        super().__init__("the stage is already decided")
        self.item = item


def tally(item: StageRecord) -> Tally:
    """Where the stage's votes stand: `decided` is "approved", "rejected" or ""."""
    approvals, rejections = int(item.get("approvals", 0)), int(item.get("rejections", 0))
    quorum, limit = int(item.get("quorum", 1)), int(item.get("rejectLimit", 0))
    decided = "approved" if approvals >= quorum else "rejected" if rejections > limit else ""
    return {
        "approvals": approvals,
        "rejections": rejections,
        "quorum": quorum,
        "reviewers": len(item.get("reviewers", [])),
        "needed": max(0, quorum - approvals),
        "decided": decided,
    }


def votes_list(item: StageRecord) -> list[HistoryVote]:
    """Every vote, oldest first, as the history records it."""
    out: list[HistoryVote] = []
    for reviewer, vote in (item.get("votes") or {}).items():
        entry: HistoryVote = {
            "reviewer": reviewer,
            "decision": "approved" if vote.get("approved") else "rejected",
            "at": str(vote.get("at", "")),
        }
        if vote.get("comment"):
            entry["comment"] = str(vote.get("comment"))
        if vote.get("rejectReason"):
            entry["rejectReason"] = str(vote.get("rejectReason"))
        out.append(entry)
    return sorted(out, key=lambda v: (v.get("at", ""), v.get("reviewer", "")))


def decision_of(item: StageRecord, decider: str) -> Decision:
    """The stage's decision as the execution receives it (callback or last step): the tally's
    verdict with the deciding reviewer's vote (a rejection's reason; an approval's triage pick
    and corrected fields, validated on the page) and every vote."""
    state = tally(item)
    vote: StoredVote = (item.get("votes") or {}).get(decider) or {}
    approved = state["decided"] == "approved"
    return Decision(
        approved=approved,
        reviewer=decider,
        comment=str(vote.get("comment", "")),
        decided_at=str(vote.get("at", "")),
        votes=tuple(votes_list(item)),
        quorum=state["quorum"],
        reject_reason="" if approved else str(vote.get("rejectReason") or ""),
        doc_type=str(vote.get("docType") or "") if approved else "",
        corrections=dict(vote.get("corrections") or {}) if approved else {},
        parts=tuple((int(a), int(b)) for a, b in vote.get("parts") or ()) if approved else (),
        add_supplier=approved and vote.get("addSupplier") is True,
    )


class StageStore:
    def __init__(self, table: str) -> None:
        self.table = table
        self.items: Table[StageRecord] = Table(table)

    def create(
        self,
        pk: str,
        ids: StageIds,
        reviewers: list[str],
        quorum: int,
        deadline: int,
    ) -> None:
        """The stage's record, once (a retried first wait finds it there)."""
        item: StageRecord = {
            "pk": pk,
            **ids,
            "reviewers": reviewers,
            # Without a quorum the first decision, either way, decides: one approval or one
            # rejection. With one, rejection comes when approval can no longer reach it.
            "quorum": quorum or 1,
            "rejectLimit": len(reviewers) - quorum if quorum else 0,
            "quorumSet": bool(quorum),
            "approvals": 0,
            "rejections": 0,
            "votes": {},
            "links": [],
            "deadline": deadline,
            "expiresAt": deadline + KEEP_S,
        }
        self.items.put_new(item)  # a repeated step finds its stage already there

    def register_round(
        self,
        pk: str,
        callback_id: str,
        round_number: int,
        round_ends_at: int,
        links: list[str],
    ) -> StageRecord:
        """Make this round's callback the one a deciding vote wakes. Refused (StageClosed) once
        the stage has an ending or a decided tally: the execution then reads the ending.

        Values are set whole (the full link and reviewer lists), so a retry repeats nothing.
        """
        names = {"#r": "round", "#q": "quorum"}
        values = {
            ":cb": callback_id,
            ":k": round_number,
            ":ends": round_ends_at,
            ":links": links,
        }
        update = "SET callbackId = :cb, #r = :k, roundEndsAt = :ends, links = :links"
        try:
            return self.items.update(
                {"pk": pk},
                update,
                condition=(
                    "attribute_exists(pk) AND attribute_not_exists(ending) "
                    "AND approvals < #q AND rejections <= rejectLimit "
                    "AND (attribute_not_exists(#r) OR #r <= :k)"
                ),
                names=names,
                values=values,
            )
        except ConditionFailed as exc:
            raise StageClosed(self.items.held(exc) or {}) from exc

    def escalate(self, pk: str, everyone: list[str]) -> None:
        """Widen the stage to the escalation reviewers; idempotent (the list is set whole, and
        the reject limit is recomputed from it, not incremented)."""
        item = self.get(pk) or {}
        quorum = int(item.get("quorum", 1))
        limit = len(everyone) - quorum if item.get("quorumSet") else 0
        try:
            self.items.update(
                {"pk": pk},
                "SET reviewers = :all, rejectLimit = :limit",
                condition="attribute_exists(pk) AND attribute_not_exists(ending)",
                values={":all": everyone, ":limit": limit},
            )
        except ConditionFailed as exc:
            raise StageClosed(self.items.held(exc) or {}) from exc

    def vote(self, pk: str, reviewer: str, vote: StoredVote) -> StageRecord:
        """Count one reviewer's vote, once, while the tally is open; the item after it."""
        counter = "approvals" if vote["approved"] else "rejections"
        try:
            item = self.items.update(
                {"pk": pk},
                f"SET votes.#who = :vote ADD {counter} :one",
                condition=(
                    "attribute_exists(pk) AND attribute_not_exists(ending) "
                    "AND attribute_not_exists(votes.#who) "
                    "AND approvals < #q AND rejections <= rejectLimit"
                ),
                names={"#who": reviewer, "#q": "quorum"},
                values={":vote": vote, ":one": 1},
            )
        except ConditionFailed as exc:
            raise StageClosed(self.items.held(exc) or {}) from exc
        return item

    def set_ending(self, pk: str, ending: Ending) -> tuple[bool, StageRecord]:
        """Write how the stage ended; the first account stands. Returns (written, item)."""
        try:
            item = self.items.update(
                {"pk": pk},
                "SET ending = :o",
                condition="attribute_exists(pk) AND attribute_not_exists(ending)",
                values={":o": {**ending, "at": int(time.time())}},
            )
        except ConditionFailed as exc:
            stored = self.items.held(exc) or {}
            close_ended(self.table, stored)
            return False, stored
        close_ended(self.table, item)
        return True, item

    def settle(self, pk: str, decider: str = "") -> dict[str, Any]:
        """The stage's ending, writing it first if nobody has: decided if the tally is (a vote
        that crossed the line while the execution was between waits), else timed out. A plain
        dict: the settling step checkpoints it as it is."""
        item = self.get(pk)
        if not item:
            return {"how": TIMED_OUT}
        if not item.get("ending"):
            state = tally(item)
            ending: Ending
            if state["decided"]:
                decider = decider or _last_voter(item)
                ending = {"how": DECIDED, **decision_of(item, decider).to_json()}
            else:
                ending = {"how": TIMED_OUT}
            _, item = self.set_ending(pk, ending)
        else:
            close_ended(self.table, item)  # a request wrote the ending and may have died
        return dict(item.get("ending") or {"how": TIMED_OUT})

    def mark_woken(self, pk: str) -> None:
        """The decision reached the execution's callback (or nothing waits on it any more)."""
        self.items.update({"pk": pk}, "SET woken = :yes", values={":yes": True})

    def get(self, pk: str) -> StageRecord | None:
        return self.items.get({"pk": pk})


def close_ended(table: str, item: StageRecord) -> None:
    """An ended stage leaves its reviewers' inboxes and the register's open waits (so a newer
    run of the document has only the waits still open to end)."""
    close_inbox(table, item)
    if item.get("ending") and item.get("documentId") and item.get("runOrder"):
        end_open_wait(
            aws.client("dynamodb"),
            table,
            str(item["documentId"]),
            f"{item['runOrder']}|{item['pk']}",
        )


def end_open_wait(ddb: Any, table: str, document_id: str, entry: str) -> None:
    """Take one "<runOrder>|<stage pk>" entry out of the register's open waits; a set DELETE,
    so repeating it (a retried step, a request and a step both ending the stage) is harmless."""
    ddb.update_item(
        TableName=table,
        Key=to_ddb({"pk": f"REG#{document_id}"}),
        UpdateExpression="DELETE openWaits :entry",
        ExpressionAttributeValues={":entry": {"SS": [entry]}},
    )


def close_inbox(table: str, item: StageRecord) -> None:
    """An ended stage leaves every inbox it was in (everyone it asked, escalation included)."""
    if not item.get("runId") or not item.get("ending"):
        return
    how = str((item.get("ending") or {}).get("how", "ended"))
    reviewers = list(item.get("reviewers") or [])
    InboxIndex(table).close(str(item["runId"]), int(item.get("stageIndex", 0)), reviewers, how)


def _last_voter(item: StageRecord) -> str:
    votes = votes_list(item)
    return votes[-1].get("reviewer", "") if votes else ""
