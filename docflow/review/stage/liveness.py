"""Is an execution still waiting on a stage, and waking it once the stage is decided.

A heartbeat to the stage's current callback says it waits; "gone" near the end of a round
means it is between two rounds (its next one will read the votes), which counts as waiting.
A decided stage whose deciding request could not send its decision is woken by whoever looks
at the stage next.
"""

from __future__ import annotations

import time

from docflow.review.stage.callbacks import CallbackGone, CallbackSender
from docflow.review.stage.decision import Decision
from docflow.review.stage.records import DECIDED, StageStore
from docflow.review.stage.register import RegisterStore
from docflow.review.stage.stage_record import StageRecord

# A round's callback times out at `roundEndsAt`; from a little before, a callback that answers
# "gone" means the execution is between two rounds (its next one will read the votes), not
# that the run ended.
ROUND_SLACK_S = 2


class Liveness:
    def __init__(
        self, callbacks: CallbackSender, register: RegisterStore, stages: StageStore
    ) -> None:
        self.callbacks, self.register, self.stages = callbacks, register, stages

    def wait_of(self, pk: str) -> StageRecord:
        """A link's stage record (votes, current callback, ending) by its pk (the link's
        `stagePk`, or an older link's `waitPk`); {} if it has none."""
        return (self.register.get_wait(pk) if pk else None) or {}

    def alive(self, wait: StageRecord, own_callback: str = "") -> bool:
        """Is the execution still waiting on this stage? A heartbeat to its current callback
        says so; "gone" near the end of a round means it is between rounds, which counts.
        `own_callback`: a link that decides alone (no stage record) keeps its own."""
        callback_id = wait.get("callbackId") or own_callback
        if not callback_id:
            return False
        try:
            self.callbacks.heartbeat(str(callback_id))
        except CallbackGone:
            ends = int(wait.get("roundEndsAt") or 0)
            return bool(ends) and time.time() >= ends - ROUND_SLACK_S
        return True

    def wake(self, wait: StageRecord) -> None:
        """Send a decided stage's decision to its current callback if nobody has yet (the
        deciding request's own call failed): every later look at the stage retries it."""
        ending = wait.get("ending") or {}
        if ending.get("how") != DECIDED or wait.get("woken") or not wait.get("callbackId"):
            return
        try:
            self.callbacks.success(str(wait["callbackId"]), Decision.stored(ending).wire())
        except CallbackGone:
            pass  # nothing waits on it any more: the execution read the ending itself
        except Exception:
            return
        self.stages.mark_woken(str(wait["pk"]))
