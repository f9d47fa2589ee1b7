"""Step: send one status report. Idempotent: the report's event id is fixed by its position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow import observability
from docflow.ids import DocumentRef
from docflow.readmodel.schema import make_report
from docflow.readmodel.transitions import ARCHIVED, FAILED, FINALIZED, RECEIVED
from docflow.runtime import runtime


def function_version(context: Any) -> str:
    """The version of the function this execution runs (Lambda's `function_version`: the
    number an alias resolved to when the execution started)."""
    lambda_context = getattr(context, "lambda_context", None)
    return str(getattr(lambda_context, "function_version", None) or "$LATEST")


@durable_step
def record_status(
    step: StepContext,
    doc: DocumentRef,
    status: str,
    stage: str,
    payload: Mapping[str, Any] | None = None,
    stage_index: int | None = None,
) -> str:
    report = make_report(doc, status, stage, payload=payload, stage_index=stage_index)
    answer = runtime().reporter.report(report)
    step.logger.info("status reported", extra={"status": status, "result": answer["result"]})
    if answer["result"] == "accepted":
        _count(status, payload or {})
    return str(answer["result"])


def _count(status: str, payload: Mapping[str, Any]) -> None:
    if status == RECEIVED:
        observability.count("DocumentsReceived")
    elif status == FINALIZED:
        observability.count("DocumentsFinalized")
    elif status == ARCHIVED:
        observability.count("DocumentsArchived")
    elif status == FAILED:
        observability.count("DocumentsFailed")
        observability.count("DocumentsFailedByReason", reason=str(payload.get("reason", "unknown")))
    cost = payload.get("cost")
    if isinstance(cost, dict) and "usd" in cost:
        observability.count(
            "DocumentCostUsd", float(cost["usd"]), docType=str(cost.get("docType") or "unknown")
        )
