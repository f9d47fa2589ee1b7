"""`docflow stuck`: which documents in progress are really stuck, and what each is doing.

A document waiting on a reviewer before its stage's deadline is where it should be (its
execution sleeps, nothing is billed); past the deadline, the stage's timeout should have
ended it, so it is stuck. For the rest, the run's own durable history says which operation it
is on, since when, and why that counts as stuck (`docflow.trace.stuck`, from
GetDurableExecutionHistory, in AWS and on the local stack's runner alike).
"""

from __future__ import annotations

from datetime import UTC, datetime

from docflow.cli.shapes import StuckItem, list_item
from docflow.readmodel.items import DocumentState
from docflow.readmodel.transitions import PENDING_REVIEW


def waiting_within_deadline(item: DocumentState, now: datetime | None = None) -> bool:
    """Pure: a document waiting on a person whose stage has not reached its deadline."""
    if item.get("status") != PENDING_REVIEW or not item.get("reviewDeadline"):
        return False
    try:
        deadline = datetime.fromisoformat(str(item["reviewDeadline"]))
    except ValueError:
        return False
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    return deadline > (now or datetime.now(UTC))


def stuck_items(items: list[DocumentState]) -> list[StuckItem]:
    """The listing's items that are stuck, each explained from its run's history: the
    operation it is on, since when, why that is stuck, and the execution's status."""
    from docflow.cli.stack import model
    from docflow.trace.stuck import explain_run

    out = []
    for raw in items:
        if waiting_within_deadline(raw):
            continue
        # The document's reports say who a review waits on and when its stage times out.
        shown = model().show(str(raw["documentId"])) if raw.get("documentId") else None
        out.append(StuckItem(**list_item(raw), **explain_run(raw, shown=shown)))
    return out
