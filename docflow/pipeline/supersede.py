"""Steps: a newer run of a document ends the review waits of older runs.

Done by the new run's first step, not the starter or the recorder, because only the run knows
it exists for certain (the starter may start it twice; the recorder hears of it late), and a
step's retry repeats it safely: every write below is conditional or a set operation, and a
callback that is no longer waiting answers a client error that means "already ended".
"""

from __future__ import annotations

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import StepConfig

from docflow.ids import DocumentRef
from docflow.pipeline.results import Superseding
from docflow.pipeline.serdes import RecordSerDes
from docflow.review.access.links import LinkStore
from docflow.review.stage.register import RegisterStore
from docflow.runtime import runtime

# The ErrorType an older run's review callback fails with; the orchestrator archives on it.
SUPERSEDED_ERROR = "docflow.Superseded"
SUPERSEDED = "superseded"
SUPERSEDE_STEP = StepConfig(serdes=RecordSerDes(Superseding))


@durable_step
def end_older_runs(step: StepContext, doc: DocumentRef) -> Superseding:
    rt = runtime()
    register = RegisterStore(rt.settings.links_table)
    links = LinkStore(rt.settings.links_table)
    latest, waits = register.claim_newest(doc)
    ended = 0
    for wait in waits:
        item = register.get_wait(wait.pk)
        if item is not None:
            # Links first, so a click after this point is refused; then the callback, which a
            # click already under way may have completed first (then that decision stands).
            for pk in item.get("links", []):
                links.close_superseded(pk)
            register.set_ending(wait.pk, {"how": SUPERSEDED, "byRun": doc.run_id})
            # A stage between rounds has no live callback: its next round finds the ending.
            if item.get("callbackId"):
                rt.callbacks.failure(
                    str(item["callbackId"]),
                    SUPERSEDED_ERROR,
                    "a newer version of this document replaced the one under review",
                )
        register.end_wait(doc.document_id, wait)
        ended += 1
    if ended or not latest:
        step.logger.info("older runs superseded", extra={"ended": ended, "latest": latest})
    return Superseding(latest, ended)


@durable_step
def still_latest(step: StepContext, doc: DocumentRef) -> bool:
    """Checked before finalizing a reviewed document: a click may have raced the cancel."""
    return RegisterStore(runtime().settings.links_table).is_latest(doc)
