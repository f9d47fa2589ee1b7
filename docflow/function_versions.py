"""Which versions of a durable function hold open executions: Lambda's own answer.

An execution runs, and resumes, on the version it started on. A version can be deleted (or,
locally, pruned) only when no execution is RUNNING on it: this asks
ListDurableExecutionsByFunction once per version qualifier (15 requests a second at most in
AWS, so `docflow versions` makes one request per version and page, never one per execution).
The local durable runner answers the same call; it ignores the qualifier filter, so every
execution is also checked against the version its `FunctionArn` names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mypy_boto3_lambda.type_defs import (
        ExecutionTypeDef,
        ListDurableExecutionsByFunctionRequestTypeDef,
    )

OPEN: Final = "RUNNING"


def version_of(execution: ExecutionTypeDef) -> str:
    """The version an execution summary names (its qualified function ARN, else `Version`)."""
    arn = str(execution.get("FunctionArn") or "")
    qualifier = arn.rsplit(":function:", 1)[-1].partition(":")[2]
    return qualifier or str(execution.get("Version") or "$LATEST")


def open_executions(
    client: Any, function: str, qualifiers: Iterable[str]
) -> dict[str, list[ExecutionTypeDef]]:
    """qualifier -> the RUNNING executions on it (`DurableExecutionArn`, `DurableExecutionName`,
    `StartTimestamp`), for each qualifier asked."""
    found: dict[str, list[ExecutionTypeDef]] = {}
    for qualifier in qualifiers:
        rows: list[ExecutionTypeDef] = []
        args: ListDurableExecutionsByFunctionRequestTypeDef = {
            "FunctionName": function,
            "Qualifier": qualifier,
            "Statuses": [OPEN],
            "MaxItems": 1000,
        }
        while True:
            answer = client.list_durable_executions_by_function(**args)
            rows.extend(
                e
                for e in answer.get("DurableExecutions", [])
                if e.get("Status") == OPEN and version_of(e) == qualifier
            )
            if not answer.get("NextMarker"):
                break
            args["Marker"] = answer["NextMarker"]
        found[qualifier] = rows
    return found


def published_versions(client: Any, function: str) -> list[str]:
    """The function's published version numbers ($LATEST left out), oldest first."""
    out: list[str] = []
    for page in client.get_paginator("list_versions_by_function").paginate(FunctionName=function):
        out.extend(v["Version"] for v in page.get("Versions", []) if v["Version"] != "$LATEST")
    return sorted(out, key=int)


def alias_version(client: Any, function: str, alias: str = "live") -> str:
    return str(client.get_alias(FunctionName=function, Name=alias)["FunctionVersion"])
