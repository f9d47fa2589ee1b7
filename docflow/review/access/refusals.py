"""Why a review request is refused: the error the callback API turns into a 4xx page, the
reasons a reviewer may give for a rejection, and how to say that a stage is already over."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from docflow.review.access.link_record import LinkRecord
from docflow.review.stage.records import DECIDED, TIMED_OUT
from docflow.review.stage.stage_record import StageRecord

REVOKED_MESSAGE = (
    "This link was revoked: its reviewer no longer reviews documents here. "
    "Ask the team that sent it if you think this is a mistake."
)
SUPERSEDED_MESSAGE = (
    "A newer version of this document replaced the one you were asked to review. "
    "Nothing is waiting for your decision on this version."
)


class ReviewRefused(Exception):
    def __init__(
        self, status: int, code: str, message: str, link: LinkRecord | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.link = status, code, link


REJECT_REASONS = {
    "wrong-document": "Not the document it claims to be",
    "data-incorrect": "Details in it are wrong",
    "not-allowed": "Holds data that must not be processed",
    "unreadable": "Cannot be read",
    "other": "Another reason (say which below)",
}

# Offered only where the stage asks it: a stage routed because the document may have been
# sent before (`pipeline/duplicates.py`: `duplicate`, `duplicate-unchecked`, and any later
# kind of duplicate hit), where "it is one" is the answer the stage exists for.
DUPLICATE = "duplicate"
DUPLICATE_REASON = {DUPLICATE: "It is a duplicate of the document sent before"}
# Every reason a decision may carry, for the pages that name one (the answer, the history).
ALL_REASONS = {**DUPLICATE_REASON, **REJECT_REASONS}

# "Another reason" says nothing by itself: the audit trail needs the reviewer's words.
OTHER_NEEDS_COMMENT = "Say in the comment why you reject it for another reason"


def reasons_for(link: LinkRecord) -> dict[str, str]:
    """The reasons this link's stage offers for a rejection, first the one it exists for."""
    because = link.shown.because(link.stage_index)
    return {**DUPLICATE_REASON, **REJECT_REASONS} if DUPLICATE in because else REJECT_REASONS


def other_without_comment(reason: str, comment: str) -> bool:
    return reason == "other" and not comment.strip()


def stage_over(link: LinkRecord, wait: StageRecord) -> ReviewRefused:
    """The refusal for a genuine link whose stage is over: superseded, decided (by whom, and
    where a quorum stood), timed out, or its run ended without a decision."""
    ending = wait.get("ending") or {}
    if ending.get("how") == "superseded":
        return ReviewRefused(409, "superseded", SUPERSEDED_MESSAGE, link)
    if ending.get("how") == DECIDED:
        verb = "approved" if ending.get("approved") else "rejected"
        side = [v["reviewer"] for v in ending.get("votes", []) if v.get("decision") == verb]
        who = " and ".join(side) if len(side) > 1 else ending.get("reviewer", "")
        count = ""
        if int(ending.get("quorum") or 1) > 1:
            count = f" ({len(side)} {verb}, {ending.get('quorum')} approvals needed)"
        return ReviewRefused(
            409,
            "stage-decided",
            f"This stage was already {verb} by {who or 'another reviewer'}"
            f" at {ending.get('decidedAt', '')}{count}. "
            "Nothing is waiting for your decision.",
            link,
        )
    deadline = int(wait.get("deadline") or 0)
    if ending.get("how") == TIMED_OUT or (deadline and time.time() >= deadline):
        when = datetime.fromtimestamp(deadline, UTC).isoformat(timespec="minutes")
        return ReviewRefused(
            409,
            "stage-timed-out",
            f"The time for this review ran out at {when} before anyone decided.",
            link,
        )
    return ReviewRefused(
        409,
        "not-waiting",
        "This document is no longer waiting for this review: its run ended "
        "(it failed or was stopped) before a decision.",
        link,
    )
