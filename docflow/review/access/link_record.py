"""A review link's stored record (`LINK#<sha(token)>` in the links table), as one type.

Written once by `LinkStore.issue` (`to_item`), read by every request under the link
(`from_item`): the gate binds it to the token's claims, the desk and the pages read the
document, the stage and the summary from it, the vote spends and completes it. Its item keeps
the attribute names the table has always had, in the order `issue` wrote them, so stored
links (and links written before a key existed: `from_item` gives the default) read the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Required, TypedDict

from docflow.ids import DocumentRef, display_name
from docflow.review.stage.for_review import ForReview
from docflow.review.stage.stage_record import DecisionJson


class LinkDecision(DecisionJson, total=False):
    """The decision a link made (`LinkStore.complete`); `delivery` "not-waiting" when the
    stage was over before it could count."""

    delivery: str


class LinkItem(TypedDict, total=False):
    """The stored `LINK#` item, in the order `issue` writes it; a link written before a key
    existed lacks it (`from_item` gives the default)."""

    pk: Required[str]
    documentId: str
    version: str
    runId: str
    runOrder: str
    bucket: str
    key: str
    docName: str
    stageIndex: int
    stageName: str
    reviewer: str
    reviewers: list[str]
    summary: Mapping[str, object]  # the run's summary as `ForReview.to_json` wrote it
    stagePk: str
    waitPk: str
    state: str
    expiresAt: int
    traceParent: str
    callbackId: str
    claimedAt: int
    decision: LinkDecision


@dataclass(frozen=True)
class LinkRecord:
    pk: str
    document_id: str
    version: str
    run_id: str
    run_order: str
    bucket: str = ""
    key: str = ""
    doc_name: str = ""  # what the page calls it (a packet's part: its packet's file and pages)
    stage_index: int = 0
    stage_name: str = ""
    reviewer: str = ""
    reviewers: tuple[str, ...] = ()  # everyone the stage asks, escalation included
    # As stored, read through `shown` (ForReview), which checks what it reads.
    summary: Mapping[str, object] = field(default_factory=dict)
    stage_pk: str = ""  # the stage record: votes and the execution's current callback
    wait_pk: str = ""  # the register's wait (the same stage record for links minted now)
    state: str = "open"  # open -> deciding -> used, or superseded
    expires_at: int = 0
    trace_parent: str = ""  # the notifying step's span, which the click hangs under
    callback_id: str = ""  # a link that decides alone (no stage record): its callback
    claimed_at: int | None = None  # when its single use was spent (attribute `claimedAt`)
    decision: LinkDecision | None = None  # the decision it made, once used

    @property
    def name(self) -> str:
        """What the page calls the document."""
        return self.doc_name or display_name(self.key)

    @cached_property
    def shown(self) -> ForReview:
        """What the review page shows besides the document, read from the stored summary."""
        return ForReview.from_json(self.summary)

    @property
    def doc(self) -> DocumentRef:
        """The document version the link is bound to (its S3 object and artifacts)."""
        return DocumentRef(bucket=self.bucket, key=self.key, version_id=self.version)

    @classmethod
    def from_item(cls, item: LinkItem) -> LinkRecord:
        claimed = item.get("claimedAt")
        decision = item.get("decision")
        return cls(
            pk=str(item["pk"]),
            document_id=str(item.get("documentId", "")),
            version=str(item.get("version", "")),
            run_id=str(item.get("runId", "")),
            run_order=str(item.get("runOrder", "")),
            bucket=str(item.get("bucket", "")),
            key=str(item.get("key", "")),
            doc_name=str(item.get("docName") or ""),
            stage_index=int(item.get("stageIndex", 0)),
            stage_name=str(item.get("stageName", "")),
            reviewer=str(item.get("reviewer", "")),
            reviewers=tuple(str(r) for r in item.get("reviewers") or ()),
            summary=dict(item.get("summary") or {}),
            stage_pk=str(item.get("stagePk") or ""),
            wait_pk=str(item.get("waitPk") or ""),
            state=str(item.get("state", "")),
            expires_at=int(item.get("expiresAt", 0)),
            trace_parent=str(item.get("traceParent") or ""),
            callback_id=str(item.get("callbackId") or ""),
            claimed_at=int(claimed) if claimed is not None else None,
            # Stored by `complete`, always a map: anything else is no decision.
            decision=decision if isinstance(decision, Mapping) else None,
        )

    def to_item(self) -> LinkItem:
        """The item as `issue` writes it; a key that says nothing optional is left out."""
        item: LinkItem = {
            "pk": self.pk,
            "documentId": self.document_id,
            "version": self.version,
            "runId": self.run_id,
            "runOrder": self.run_order,
            "bucket": self.bucket,
            "key": self.key,
            "docName": self.doc_name,
            "stageIndex": self.stage_index,
            "stageName": self.stage_name,
            "reviewer": self.reviewer,
            "reviewers": list(self.reviewers),
            "summary": self.summary,
            "stagePk": self.stage_pk,
            "waitPk": self.wait_pk,
            "state": self.state,
            "expiresAt": self.expires_at,
        }
        if self.trace_parent:
            item["traceParent"] = self.trace_parent
        if self.callback_id:
            item["callbackId"] = self.callback_id
        if self.claimed_at is not None:
            item["claimedAt"] = self.claimed_at
        if self.decision is not None:
            item["decision"] = self.decision
        return item
