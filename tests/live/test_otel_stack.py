"""One OpenTelemetry trace per document run on the live local stack: the starter's span, the
orchestrator's invocations and operations, the reviewer's click at the callback API and the
recorder's spans all carry one trace id, in the run's span file under the state folder; and
no span says a token, a callback id, the reviewer's comment or a field's value."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any
from urllib.parse import urlparse

import pytest

from docflow import aws
from docflow.local.config import StackConfig
from docflow.telemetry.context import for_run
from tests.kit.pdfgen import INVOICE_UNREADABLE_TOTAL, make_pdf
from tests.support.live_stack import executions_named, http, review_url, upload_doc, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.live_stack]

COMMENT = "checked-against-the-paper-copy-7731"
CORRECTED_TOTAL = "1100.00"


def trace_of(config: StackConfig, document_id: str) -> dict[str, Any]:
    command = ["trace", document_id, "--otel", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(config.state), *command],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def callback_ids(execution_name: str) -> set[str]:
    (execution,) = executions_named(execution_name)
    lam, ids, args = (
        aws.client("lambda"),
        set(),
        {"DurableExecutionArn": execution["DurableExecutionArn"]},
    )
    while True:
        page = lam.get_durable_execution_history(**args)
        for event in page.get("Events", []):
            callback = event.get("CallbackStartedDetails") or {}
            if callback.get("CallbackId"):
                ids.add(str(callback["CallbackId"]))
        if not page.get("NextMarker"):
            return ids
        args["Marker"] = page["NextMarker"]


def test_a_reviewed_documents_spans_share_one_trace_and_say_no_secret(
    live_stack: StackConfig,
) -> None:
    doc = upload_doc(live_stack, "incoming/otel-invoice.pdf", make_pdf([INVOICE_UNREADABLE_TOTAL]))
    state = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    assert state["stageName"] == "fields"
    fields = {name: str(f.get("value")) for name, f in (state.get("fields") or {}).items()}
    url = review_url(live_stack, doc.run_id)
    form = {"decision": "approve", "comment": COMMENT, "field.total_amount": CORRECTED_TOTAL}
    status, page = http("POST", url, form)
    assert status == 200, page[:2000]
    wait_for(doc.document_id, {"finalized"}, doc.run_id)

    found = trace_of(live_stack, doc.document_id)
    spans = found["spans"]
    # The trace id is the run's: its id and its order (the S3 event's time) in the read model.
    expected = for_run(doc.run_id, state["runOrder"]).trace_hex
    assert found["traceIds"] == [expected]
    parts = found["parts"]
    assert set(parts) >= {
        "docflow.starter",
        "docflow.orchestrator",
        "docflow.callback-api",
        "docflow.status-recorder",
    }, parts
    names = [s["name"] for s in spans]
    # The run suspended on the review and resumed on the click: two invocations at least.
    assert names.count("Invocation") >= 2
    (start,) = [s for s in spans if s["name"] == "start document"]
    assert start["parentSpanId"] is None
    by_id = {s["spanId"]: s for s in spans}
    (click,) = [s for s in spans if s["name"] == "review decision"]
    assert click["attributes"]["docflow.decision"] == "approved"
    # The click hangs under the step that sent the link; the recorder's spans under a sender.
    assert by_id[click["parentSpanId"]]["part"] == "docflow.orchestrator"
    recorded = [s for s in spans if s["part"] == "docflow.status-recorder"]
    assert {s["attributes"]["docflow.status"] for s in recorded} >= {"received", "finalized"}
    assert all(s["parentSpanId"] in by_id for s in recorded)
    assert any(by_id[s["parentSpanId"]]["part"] == "docflow.callback-api" for s in recorded)

    token = urlparse(url).path.rsplit("/", 1)[-1]
    secrets = {"token": token, "comment": COMMENT, "corrected total": CORRECTED_TOTAL}
    secrets |= {f"callback id {n}": c for n, c in enumerate(callback_ids(doc.execution_name))}
    # Field values long enough to mean something (a one-letter currency code would match ids).
    secrets |= {f"field {k}": v for k, v in fields.items() if len(v) >= 4}
    assert any(k.startswith("callback id") for k in secrets)
    for span in spans:
        said = json.dumps([span["name"], span["attributes"], span["events"], span["statusMessage"]])
        for what, value in secrets.items():
            assert value not in said, f"{what} in span {span['name']}"
