"""The orchestrator may do to the supplier registry what its steps do: every DynamoDB call
the pipeline makes on the registry, recorded while a reviewer adds a supplier, its profile is
learned and its next invoice is read from it (the real handler on the testing runner, moto),
is an action the template grants the orchestrator on that table. moto enforces no IAM, so a
step the template forgot to grant passed every local test and failed only in AWS (`register
supplier` writes the supplier and its claims in one transaction: PutItem on each)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from docflow import aws
from docflow.local.resources import load_template
from docflow.settings import load_settings
from tests.suppliers.papers import blauwal_invoice
from tests.support.aws import Stack
from tests.support.cfn import Resolver
from tests.support.reviewed_runs import run_reviewed

TEMPLATE = load_template()
# Inside TransactWriteItems each item is authorized as its own action.
TRANSACT = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


def calls_on(table: str, operation: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """(action, resource) pairs an API call needs on `table` (resource: "table" or "index")."""
    if operation == "TransactWriteItems":
        return [
            (TRANSACT[kind], "table")
            for item in params["TransactItems"]
            for kind, body in item.items()
            if body["TableName"] == table
        ]
    if params.get("TableName") != table:
        return []
    return [(operation, "index" if params.get("IndexName") else "table")]


@pytest.fixture
def recorded(stack: Stack) -> Iterator[set[tuple[str, str]]]:
    table = load_settings().supplier_table
    seen: set[tuple[str, str]] = set()

    def hook(params: dict[str, Any], model: Any, **_: Any) -> None:
        seen.update(calls_on(table, model.name, params))

    events = aws.client("dynamodb").meta.events
    events.register("provide-client-params.dynamodb", hook)
    try:
        yield seen
    finally:
        events.unregister("provide-client-params.dynamodb", hook)


def granted(function: str) -> set[tuple[str, str]]:
    resolve = Resolver(TEMPLATE)
    props = TEMPLATE["Resources"][function]["Properties"]
    table_arn = resolve({"Fn::GetAtt": ["SupplierTable", "Arn"]})
    out: set[tuple[str, str]] = set()
    for statement in resolve.statements(props):
        resources = statement["Resource"]
        resources = resources if isinstance(resources, list) else [resources]
        actions = statement["Action"]
        for action in actions if isinstance(actions, list) else [actions]:
            for named in resources:
                # the resolver leaves a Sub's attribute references as written
                resource = str(named).replace("${SupplierTable.Arn}", table_arn)
                if resource == table_arn:
                    out.add((action.removeprefix("dynamodb:"), "table"))
                elif resource.startswith(f"{table_arn}/index/"):
                    out.add((action.removeprefix("dynamodb:"), "index"))
    return out


def test_what_the_supplier_steps_call_is_granted_to_the_orchestrator(
    stack: Stack, shipped_rules: None, recorded: set[tuple[str, str]]
) -> None:
    number = "E2026000000017"
    answer = {
        "approved": True,
        "reviewer": "ap@example.com",
        "corrections": {"invoice_number": number},
        "addSupplier": True,
    }
    first, _, _ = run_reviewed(stack, blauwal_invoice(number), "in/first.pdf", [answer])
    second, waited, _ = run_reviewed(stack, blauwal_invoice("E2026000000018"), "in/second.pdf")
    # every path was taken: added, learned, and the next invoice read by the profile
    assert first["supplier"]["by"] == "review" and waited == []
    assert second["supplier"]["supplierId"] == first["supplier"]["supplierId"]
    assert ("PutItem", "table") in recorded and ("UpdateItem", "table") in recorded
    missing = recorded - granted("OrchestratorFunction")
    assert not missing, f"the orchestrator calls {sorted(missing)} on SupplierTable ungranted"
