"""Starting durable executions on the local runner, as Lambda's Invoke starts them in AWS.

In AWS, Lambda de-duplicates starts by DurableExecutionName (same name and payload: the
existing execution), so the product's `LambdaStarter` just invokes. The local durable runner
does not, so this starter claims the name with a conditional write first, and on taking over a
stale claim asks the runner whether the run already exists. Only a claim marked "started" (or a
run the runner has) makes a start a duplicate: one left "starting" is waited out, never trusted.

The product never imports this module (the Lambda artifact leaves `docflow/local` out): the
functions' host hands `local_starter` to `docflow.intake.use_local_starters` before it loads a
function, and `docflow.intake.build_starter` builds through it wherever the settings name a
local runner (the starter's SQS handler, a packet's parts, the batcher's schedule). The CLI,
which drives the stack, builds one directly (`docflow reprocess`).
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.request

from docflow.dynamo import ConditionFailed, Table
from docflow.executions import LambdaExecutionStatuses
from docflow.ids import DocumentRef
from docflow.intake import execution_input
from docflow.local.config import ACCOUNT_ID
from docflow.settings import Settings, SettingsError

CLAIM_TIMEOUT_S = 60
CLAIM_POLL_S = 1.0


def local_starter(function: str, settings: Settings) -> LocalRunnerStarter:
    """The starter of `function`'s executions on the runner the settings name (the local
    stack's function environment sets both)."""
    if not settings.start_claims_table:
        raise SettingsError("DOCFLOW_START_CLAIMS_TABLE is needed with DOCFLOW_LOCAL_RUNNER_URL")
    return LocalRunnerStarter(
        settings.local_runner_url,
        function,
        settings.start_claims_table,
        settings.execution_timeout_s,
    )


class LocalRunnerStarter:
    """The local stack: claim the name in DynamoDB, then ask the local runner to start it."""

    def __init__(
        self, runner_url: str, function: str, claims_table: str, execution_timeout_s: int
    ) -> None:
        self.runner_url = runner_url.rstrip("/")
        self.function = function
        self.executions = LambdaExecutionStatuses(function)
        self.claims_table = claims_table
        self.timeout = execution_timeout_s

    def start(self, doc: DocumentRef) -> bool:
        return self.start_named(doc.execution_name, execution_input(doc))

    def start_named(self, name: str, payload: str) -> bool:
        """Start the execution `name` with this (deterministic) input; False if it exists.

        Only a claim marked "started", or a run the runner has, is a duplicate. A claim still
        "starting" may belong to a starter that died between claiming and starting (its
        message comes back, its step is retried, and would find the claim): this call waits
        for that claim to be marked or go stale, then takes it over, so a document is never
        dropped as a duplicate of a start that never happened."""
        claims = Table(self.claims_table)
        # Ours alone: a claim write whose answer was lost is retried by botocore and then
        # fails its condition on the very item it wrote.
        owner = secrets.token_hex(8)
        while True:
            now = int(time.time())
            item = {"pk": f"START#{name}", "state": "starting", "claimedAt": now, "owner": owner}
            try:
                # A claim left "starting" by a starter that died is taken over after a while.
                stale = claims.put(
                    item,
                    condition="attribute_not_exists(pk) OR (#s = :starting AND claimedAt < :stale)",
                    names={"#s": "state"},
                    values={":starting": "starting", ":stale": now - CLAIM_TIMEOUT_S},
                )
                break
            except ConditionFailed as failed:
                held = failed.item
                if held.get("owner") == owner:
                    # Our own write, landed before its retry: whether it took over a stale
                    # claim is unknown, so the runner is asked as after a takeover.
                    stale, item = held, held
                    break
                if held.get("state") == "started" or self.executions.status(name) is not None:
                    return False
                # Another start is under way, or died before starting the run: wait it out.
                time.sleep(CLAIM_POLL_S)
        # The starter whose stale claim this took over may have died after starting the run
        # and before marking the claim: then the runner has it (the runner's list is the truth).
        started = not (stale is not None and self.executions.status(name) is not None)
        if started:
            self._start(name, payload)
        claims.put({**item, "state": "started"})
        return started

    def _start(self, name: str, payload: str) -> None:
        body = {
            "AccountId": ACCOUNT_ID,
            "FunctionName": self.function,
            "FunctionQualifier": "live",
            "ExecutionName": name,
            "ExecutionTimeoutSeconds": self.timeout,
            "ExecutionRetentionPeriodDays": 7,
            "Input": payload,
        }
        if not self.runner_url.startswith(("http://127.", "http://localhost")):
            raise ValueError("the local runner must be on this machine")
        request = urllib.request.Request(  # noqa: S310 - checked above: http on loopback
            f"{self.runner_url}/start-durable-execution",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
            answer.read()
