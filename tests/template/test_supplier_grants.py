"""The orchestrator may do to the supplier registry what its steps do, and no more: every
DynamoDB call the pipeline makes on the registry, recorded while a reviewer proposes a
supplier, its layout is learned and its next invoice is read from it (the real handler on
the testing runner, moto), is an action the template grants the orchestrator on that table,
on the items its `dynamodb:LeadingKeys` condition names. moto enforces no IAM, so a step the
template forgot to grant passed every local test and failed only in AWS. And since issue 43
the grant itself is the control: the orchestrator can put no supplier and no id claim
(operators do, with four eyes), and update only its own learned data (layouts, the audit
ledger) and a supplier's profile (the runs recorded before layouts still write it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import Any

import pytest

from docflow import aws
from docflow.local.resources import load_template
from docflow.settings import load_settings
from docflow.suppliers import proposals
from tests.suppliers.papers import blauwal_invoice
from tests.support.aws import Stack
from tests.support.cfn import Resolver
from tests.support.reviewed_runs import audit_drawn, registry, run_reviewed

TEMPLATE = load_template()
# Inside TransactWriteItems each item is authorized as its own action.
TRANSACT = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


Call = tuple[str, str, str]  # (action, "table" or "index", the item's pk or "")


def _pk(body: dict[str, Any]) -> str:
    item = body.get("Key") or body.get("Item") or {}
    return str((item.get("pk") or {}).get("S", ""))


def calls_on(table: str, operation: str, params: dict[str, Any]) -> list[Call]:
    """What an API call needs on `table`: (action, resource, the key it touches)."""
    if operation == "TransactWriteItems":
        return [
            (TRANSACT[kind], "table", _pk(body))
            for item in params["TransactItems"]
            for kind, body in item.items()
            if body["TableName"] == table
        ]
    if params.get("TableName") != table:
        return []
    return [(operation, "index" if params.get("IndexName") else "table", _pk(params))]


@dataclass
class Recorder:
    seen: set[Call] = field(default_factory=set)
    on: bool = True


@pytest.fixture
def recorded(stack: Stack) -> Iterator[Recorder]:
    table = load_settings().supplier_table
    recorder = Recorder()

    def hook(params: dict[str, Any], model: Any, **_: Any) -> None:
        if recorder.on:
            recorder.seen.update(calls_on(table, model.name, params))

    events = aws.client("dynamodb").meta.events
    events.register("provide-client-params.dynamodb", hook)
    try:
        yield recorder
    finally:
        events.unregister("provide-client-params.dynamodb", hook)


Grant = tuple[str, str, tuple[str, ...] | None]  # (action, resource, leading-key patterns)


def granted(function: str) -> list[Grant]:
    resolve = Resolver(TEMPLATE)
    props = TEMPLATE["Resources"][function]["Properties"]
    table_arn = resolve({"Fn::GetAtt": ["SupplierTable", "Arn"]})
    out: list[Grant] = []
    for statement in resolve.statements(props):
        resources = statement["Resource"]
        resources = resources if isinstance(resources, list) else [resources]
        actions = statement["Action"]
        condition = statement.get("Condition") or {}
        leading = (condition.get("ForAllValues:StringLike") or {}).get("dynamodb:LeadingKeys")
        keys = tuple(leading) if leading else None
        for action in actions if isinstance(actions, list) else [actions]:
            for named in resources:
                # the resolver leaves a Sub's attribute references as written
                resource = str(named).replace("${SupplierTable.Arn}", table_arn)
                name = action.removeprefix("dynamodb:")
                if resource == table_arn:
                    out.append((name, "table", keys))
                elif resource.startswith(f"{table_arn}/index/"):
                    out.append((name, "index", keys))
    return out


def allowed(grants: list[Grant], call: Call) -> bool:
    action, resource, pk = call
    return any(
        a == action and r == resource and (keys is None or any(fnmatch(pk, k) for k in keys))
        for a, r, keys in grants
    )


def test_what_the_supplier_steps_call_is_granted_to_the_orchestrator(
    stack: Stack, shipped_rules: None, recorded: Recorder
) -> None:
    number = "E2026000000017"
    answer = {
        "approved": True,
        "reviewer": "ap@example.com",
        "corrections": {"invoice_number": number},
        "addSupplier": True,
    }
    first, _, _ = run_reviewed(stack, blauwal_invoice(number), "in/first.pdf", [answer])
    recorded.on = False  # the operator's approval is theirs, with their own credentials
    proposals.approve(registry(), first["supplierProposed"]["proposalId"], "controller")
    recorded.on = True
    fix = {**answer, "corrections": {"invoice_number": "E2026000000018"}, "addSupplier": False}
    second, _, _ = run_reviewed(stack, blauwal_invoice("E2026000000018"), "in/2.pdf", [fix])
    data = blauwal_invoice("E2026000000019")
    doc = stack.upload("in/third.pdf", data)
    audited = [answer | {"corrections": {}, "addSupplier": False}] * audit_drawn(doc, 0.05)
    third, waited, _ = run_reviewed(stack, data, "", audited, doc=doc)
    # every path was taken: proposed, learned, and the next invoice read by the layout
    assert [w["stageName"] for w in waited] == ["audit"] * len(audited)
    assert third["supplier"]["supplierId"] == second["supplier"]["supplierId"]
    assert third["profileFields"] and third["layout"]["status"] == "matched"
    actions = {(a, r) for a, r, _ in recorded.seen}
    assert ("PutItem", "table") in actions and ("UpdateItem", "table") in actions
    grants = granted("OrchestratorFunction")
    missing = sorted(c for c in recorded.seen if not allowed(grants, c))
    assert not missing, f"the orchestrator calls {missing} on SupplierTable ungranted"


def test_the_orchestrator_can_write_no_supplier_and_no_claim() -> None:
    grants = granted("OrchestratorFunction")
    for pk in ("SUPPLIER#blauwal", "ID#vat:DE812345673"):
        for action in ("PutItem", "DeleteItem", "BatchWriteItem"):
            assert not allowed(grants, (action, "table", pk)), (action, pk)
    assert not allowed(grants, ("UpdateItem", "table", "ID#vat:DE812345673"))
    assert not allowed(grants, ("UpdateItem", "table", "PROPOSAL#p-1"))  # no self-approval
    assert allowed(grants, ("PutItem", "table", "PROPOSAL#p-1"))
    assert allowed(grants, ("UpdateItem", "table", "SUPPLIER#blauwal"))
    # The audit ledger is docflow's own counters (AUDIT#), no master data; a learned layout
    # (LAYOUT#) is what docflow reads, never whom it pays.
    assert allowed(grants, ("UpdateItem", "table", "AUDIT#blauwal"))
    assert allowed(grants, ("UpdateItem", "table", "LAYOUT#L-0123456789ab"))
    assert not allowed(grants, ("PutItem", "table", "LAYOUT#L-0123456789ab"))
    (update,) = [
        s
        for s in Resolver(TEMPLATE).statements(
            TEMPLATE["Resources"]["OrchestratorFunction"]["Properties"]
        )
        if s["Action"] == "dynamodb:UpdateItem"
        and "SupplierTable" in str(s["Resource"])
        and "SUPPLIER#*" in str(s.get("Condition"))
    ]
    attributes = update["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"]
    assert sorted(attributes) == ["pk", "profile", "profileVersion"]
