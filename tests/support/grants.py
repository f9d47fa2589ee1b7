"""What a function is granted on a table in template.yaml, and what a DynamoDB call needs:
for tests that record the calls real runs make (moto enforces no IAM) and compare."""

from __future__ import annotations

from typing import Any

from docflow.local.resources import load_template
from tests.support.cfn import Resolver

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


def granted(function: str, table: str) -> set[tuple[str, str]]:
    """(action, "table"|"index") pairs `function`'s policies grant on the logical `table`."""
    resolve = Resolver(TEMPLATE)
    props = TEMPLATE["Resources"][function]["Properties"]
    table_arn = resolve({"Fn::GetAtt": [table, "Arn"]})
    out: set[tuple[str, str]] = set()
    for statement in resolve.statements(props):
        resources = statement["Resource"]
        actions = statement["Action"]
        for action in actions if isinstance(actions, list) else [actions]:
            for named in resources if isinstance(resources, list) else [resources]:
                # the resolver leaves a Sub's attribute references as written
                resource = str(named).replace(f"${{{table}.Arn}}", table_arn)
                if resource == table_arn:
                    out.add((action.removeprefix("dynamodb:"), "table"))
                elif resource.startswith(f"{table_arn}/index/"):
                    out.add((action.removeprefix("dynamodb:"), "index"))
    return out
