"""The orchestrator may do to the order store what matching's steps do, and nothing else may:
every DynamoDB call the pipeline makes on `OrderTable` (an invoice's waits, an order's and a
receipt's registration and wake, a bill's share taken, settled and given back), recorded on real
runs of the handler (the testing runner, moto, which enforces no IAM), is granted to the
orchestrator in template.yaml; no other function is granted the table; and the orchestrator may
complete a waiting run's callback (SendDurableExecutionCallbackSuccess) on its own function."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.settings import load_settings
from tests.kit.orders import PAPER, Item, delivery_note_pdf, invoice_pdf, order_pdf
from tests.support.aws import Stack
from tests.support.cfn import Resolver
from tests.support.grants import TEMPLATE, calls_on, granted
from tests.support.matching import matching_runs, use_matching_rules

ACME = "ACME SUPPLIES LTD"


@pytest.fixture
def recorded(stack: Stack) -> Iterator[set[tuple[str, str]]]:
    table = load_settings().order_table
    seen: set[tuple[str, str]] = set()

    def hook(params: dict[str, Any], model: Any, **_: Any) -> None:
        seen.update(calls_on(table, model.name, params))

    events = aws.client("dynamodb").meta.events
    events.register("provide-client-params.dynamodb", hook)
    try:
        yield seen
    finally:
        events.unregister("provide-client-params.dynamodb", hook)


def test_what_the_matching_steps_call_is_granted_to_the_orchestrator_only(
    stack: Stack,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    recorded: set[tuple[str, str]],
) -> None:
    monkeypatch.setenv("DOCFLOW_RULES_PATH", "")
    monkeypatch.setenv("DOCFLOW_EXECUTION_TIMEOUT_S", "86400")
    use_matching_rules(tmp_path, timeout_s=120, three_way=True)
    with matching_runs(stack) as runs:
        invoice, arn = runs.start("in/inv.pdf", invoice_pdf("INV-1", "PO-4411", ACME, PAPER))
        runs.wait_status(invoice, "awaiting-match")
        runs.finish("in/po.pdf", order_pdf("PO-4411", ACME, PAPER))
        runs.finish("in/dn.pdf", delivery_note_pdf("DN-1", "PO-4411", ACME, PAPER))
        assert runs.result(arn)["match"]["billed"]
        # One held at the match stage (a line the order lacks), archived: its share goes back.
        small = [Item("X-901", "Catering for the annual party", Decimal(1), Decimal("10.00"))]
        doc, held = runs.start("in/inv-2.pdf", invoice_pdf("INV-2", "PO-4411", ACME, small))
        runs.decide(held, 0, {"approved": False, "reviewer": "a@example.com", "comment": "no"})
        assert runs.result(held)["status"] == "archived", doc
    assert {("Query", "table"), ("PutItem", "table"), ("UpdateItem", "table")} <= recorded
    missing = recorded - granted("OrchestratorFunction", "OrderTable")
    assert not missing, f"the orchestrator calls {sorted(missing)} on OrderTable ungranted"
    others = [
        name
        for name, spec in TEMPLATE["Resources"].items()
        if name != "OrchestratorFunction"
        and spec["Type"] == "AWS::Serverless::Function"
        and granted(name, "OrderTable")
    ]
    assert others == []


def test_the_orchestrator_may_wake_a_run_of_its_own_function_and_no_other() -> None:
    resolve = Resolver(TEMPLATE)
    props = TEMPLATE["Resources"]["OrchestratorFunction"]["Properties"]
    woken = [
        s["Resource"]
        for s in resolve.statements(props)
        if "lambda:SendDurableExecutionCallbackSuccess"
        in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])
    ]
    assert woken and all(str(r).endswith("-orchestrator:*") for r in woken), woken
