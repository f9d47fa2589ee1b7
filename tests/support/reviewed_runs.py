"""One document through the real handler on the durable testing runner, its review stages
answered in order: what the supplier tests (learning, "add this supplier", the registry's IAM
grants) share."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.ids import DocumentRef
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from docflow.suppliers.store import SupplierStore
from orchestrator.app import handler
from tests.support.aws import Stack, result_json


def run_reviewed(
    stack: Stack,
    data: bytes,
    key: str,
    decisions: Sequence[dict[str, Any]] = (),
    doc: DocumentRef | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """Run one document, answering its review stages with `decisions` in order; (result,
    the read model's pending item at each stage, the runner's result for its operations).
    `doc`: the version to run, uploaded already (else `data` is uploaded under `key`)."""
    doc = doc or stack.upload(key, data)
    waited: list[dict[str, Any]] = []
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=180)
        for index, decision in enumerate(decisions):
            callback = runner.wait_for_callback(
                arn, name=f"review-{index} create callback id", timeout=120
            )
            (item,) = ReadModel(load_settings().table_name).pending().items
            waited.append(item)
            runner.send_callback_success(callback, json.dumps(decision).encode())
        result = runner.wait_for_result(arn, timeout=120)
    return result_json(result), waited, result


def audit_drawn(doc: DocumentRef, rate: float) -> bool:
    """Whether the audit sample takes this version at `rate`: the draw the `audit sample` step
    makes, under the key the sandbox's signing secret derives (tests never guess it)."""
    from docflow import aws
    from docflow.pipeline.audit import content_of
    from docflow.review.access.signing import KeyRing
    from docflow.suppliers import audit_key

    secret = load_settings().signing_secret_id
    raw = aws.client("secretsmanager").get_secret_value(SecretId=secret)["SecretString"]
    key = audit_key.sample_key(KeyRing.from_json(raw))
    return audit_key.sampled(key, content_of(doc), doc.version, rate)


def registry() -> SupplierStore:
    """The supplier registry the settings name."""
    return SupplierStore(load_settings().supplier_table)
