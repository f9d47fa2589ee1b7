"""The orchestrator may do to the duplicate claims what its steps do, and nothing else may:
every DynamoDB call the pipeline makes on `DuplicateTable` (a claim, a hit whose holder's
status is read from the read model, a release), recorded on real runs of the handler (the
testing runner, moto, which enforces no IAM), is granted to the orchestrator in template.yaml,
and no other function is granted the table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json
from tests.support.grants import TEMPLATE, calls_on, granted


@pytest.fixture
def recorded(stack: Stack) -> Iterator[dict[str, set[tuple[str, str]]]]:
    tables = {
        "DuplicateTable": load_settings().duplicate_table,
        "ReadModelTable": load_settings().table_name,
    }
    seen: dict[str, set[tuple[str, str]]] = {logical: set() for logical in tables}

    def hook(params: dict[str, Any], model: Any, **_: Any) -> None:
        for logical, name in tables.items():
            seen[logical].update(calls_on(name, model.name, params))

    events = aws.client("dynamodb").meta.events
    events.register("provide-client-params.dynamodb", hook)
    try:
        yield seen
    finally:
        events.unregister("provide-client-params.dynamodb", hook)


def run(stack: Stack, data: bytes, key: str, reject: bool = False) -> dict[str, Any]:
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        if reject:
            callback = runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
            no = {"approved": False, "reviewer": "a@example.com", "rejectReason": "illegible"}
            runner.send_callback_success(callback, json.dumps(no).encode())
        return result_json(runner.wait_for_result(arn, timeout=60))


def test_what_the_duplicate_steps_call_is_granted_to_the_orchestrator_only(
    stack: Stack, shipped_rules: None, recorded: dict[str, set[tuple[str, str]]]
) -> None:
    smudged = pdfs.text_pdf(pdfs.INVOICE_UNREADABLE_TOTAL)
    assert run(stack, smudged, "in/smudged.pdf", reject=True)["status"] == "archived"
    assert run(stack, pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS), "in/a.pdf")["status"] == "finalized"
    copy = pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS + "\nCopy")
    assert run(stack, copy, "in/b.pdf", reject=True)["duplicateOf"]  # a hit, then rejected
    calls = recorded["DuplicateTable"]
    assert {("PutItem", "table"), ("DeleteItem", "table")} <= calls
    missing = calls - granted("OrchestratorFunction", "DuplicateTable")
    assert not missing, f"the orchestrator calls {sorted(missing)} on DuplicateTable ungranted"
    assert ("GetItem", "table") in recorded["ReadModelTable"]
    assert ("GetItem", "table") in granted("OrchestratorFunction", "ReadModelTable")
    others = [
        name
        for name, spec in TEMPLATE["Resources"].items()
        if name != "OrchestratorFunction"
        and spec["Type"] == "AWS::Serverless::Function"
        and granted(name, "DuplicateTable")
    ]
    assert others == []
