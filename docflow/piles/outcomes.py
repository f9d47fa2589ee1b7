"""What the batcher sends each waiting document, and the one way it sends it.

The result is the callback's JSON (the contract with the `enrich` step,
docflow.flows.enrich):

    {"status": "ok", "enrichment": {...}, "jobId": "...", "usage": {"inputTokens": n, ...}}
    {"status": "on-demand", "reason": "record-error" | "invalid-answer" | "job-expired"
                                      | "job-failed" | "job-stopped" | "pool-timeout"}

On `on-demand` the document enriches itself on-demand: nothing the job did not answer is ever
a silent gap. A callback that is already complete (a duplicate state-change event, a retried
step) is not an error: `send_result` says it completed nothing, and nothing is sent twice.
"""

from __future__ import annotations

import json
import threading

from docflow.piles.shapes import JobEnded, PileResult
from docflow.review.stage.callbacks import CallbackGone, CallbackSender, LambdaCallbackSender

OK, ON_DEMAND = "ok", "on-demand"
# The job's end status -> why its unanswered records go on-demand.
UNANSWERED = {
    "Expired": "job-expired",
    "Failed": "job-failed",
    "Stopped": "job-stopped",
    "Stopping": "job-stopped",
    "PartiallyCompleted": "record-error",
    "Completed": "record-error",
}
TERMINAL = frozenset(UNANSWERED) - {"Stopping"}

DOCUMENTS, BATCHER = "documents", "batcher"
_senders: dict[str, CallbackSender] = {}
_lock = threading.Lock()


def callbacks(to: str = DOCUMENTS) -> CallbackSender:
    with _lock:
        if to not in _senders:
            _senders[to] = LambdaCallbackSender()
        return _senders[to]


def use_callbacks(documents: CallbackSender | None, batcher: CallbackSender | None = None) -> None:
    """Tests deliver to their testing runners (one per function); None: the Lambda API."""
    with _lock:
        _senders.clear()
        _senders.update({k: v for k, v in ((DOCUMENTS, documents), (BATCHER, batcher)) if v})


def send_result(callback_id: str, result: PileResult | JobEnded, to: str = DOCUMENTS) -> bool:
    """Complete one waiting execution (a document's, or with `to=BATCHER` the batcher's wait
    for a job); False when that callback was already complete."""
    try:
        callbacks(to).success(callback_id, json.dumps(result, separators=(",", ":")).encode())
    except CallbackGone:
        return False
    return True
