"""One e-invoice through the real handler on the durable testing runner (moto behind it), to
its first stop: the review stage it waits at, or its end when it waits at none."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.ids import DocumentRef
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.transitions import ARCHIVED, FAILED, FINALIZED
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.support.aws import Stack, result_json

REJECT = {"approved": False, "reason": "test: stop at the first stage"}
FIRST_STAGE = "review-0 create callback id"
TERMINAL = (FINALIZED, FAILED, ARCHIVED)


@dataclass(frozen=True)
class Stop:
    """Where the run stopped: `stage` (None when it waited at none), the read model's state
    while it waited there (or at its end), and the run's result (after the stage was
    rejected, when it waited)."""

    doc: DocumentRef
    stage: str | None
    state: dict[str, Any]
    out: dict[str, Any]

    @property
    def route(self) -> list[str]:
        """The stages the run routed to (the read model's `stages`)."""
        return [s["name"] for s in self.state.get("stages") or []]

    def checks(self, code: str) -> list[dict[str, Any]]:
        return [c for c in self.out.get("fieldChecks") or [] if c.get("code") == code]


def _state(doc: DocumentRef) -> dict[str, Any]:
    """The read model's current state of `doc`, as plain JSON ({} before its first report)."""
    state = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
    return dict(state) if state else {}


def first_stop(stack: Stack, key: str, data: bytes, patience: int = 120) -> Stop:
    """Run `data` uploaded at `key`; a run that waits for a reviewer is rejected there, so the
    result carries its summary and route. `patience`: seconds before the test gives up (a
    bound on a hung run, never a measure of speed)."""
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=patience + 60)
        for _ in range(patience):
            try:
                callback = runner.wait_for_callback(arn, name=FIRST_STAGE, timeout=1)
            except TimeoutError:
                # The read model says when the run ended (polling the runner's own result
                # while a callback is pending loses the callback's wake-up).
                if _state(doc).get("status") not in TERMINAL:
                    continue
                result = runner.wait_for_result(arn, timeout=patience)
                return Stop(doc, None, _state(doc), result_json(result))
            (item,) = ReadModel(load_settings().table_name).pending().items
            state = _state(doc)
            runner.send_callback_success(callback, json.dumps(REJECT).encode())
            result = runner.wait_for_result(arn, timeout=patience)
            return Stop(doc, str(item["stageName"]), state, result_json(result))
    raise TimeoutError(f"{key}: no stage and no end within {patience} s")
