"""Issue 56: an XML shaped like no invoice (200,000 attributes on an element, a node-count
bomb) fails with its reason code, and a refusal of the business rules holds the invoice with
a reason code; no Java message, stack trace or server path reaches the read model. Through the
real handler (durable testing runner, moto, Saxon in this process)."""

from __future__ import annotations

import json
import sys

import pytest

from docflow.einvoice.report import Finding
from docflow.einvoice.saxon import SaxonRules
from tests.einvoice.payees import facturx_xml, register, ubl_page, with_attachments
from tests.einvoice.runs import Stop, first_stop
from tests.einvoice.shapes import node_bomb, with_attributes
from tests.support.aws import Stack

# What must never reach the read model: Saxon's Java text and any path of this machine.
LEAKS = ("JAXP", "jdk.xml", "jaxp.properties", "SaxonApiError", "Traceback", "/work", "/tmp")


def _no_leak(stop: Stop) -> None:
    seen = json.dumps(stop.state) + json.dumps(stop.out)
    for leak in LEAKS:
        assert leak not in seen, leak


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (with_attributes(200_000), "xml-too-many-attributes"),
        (node_bomb(1_200_000), "xml-too-many-nodes"),
        (
            with_attachments(ubl_page(), {"xrechnung.xml": with_attributes(200_000)}),
            "xml-too-many-attributes",
        ),
    ],
    ids=["attributes-xml", "nodes-xml", "attributes-in-a-pdf"],
)
def test_an_xml_shaped_like_no_invoice_fails_with_its_reason(
    stack: Stack, shipped_rules: None, data: bytes, reason: str
) -> None:
    stop = first_stop(stack, f"in/{reason}", data)
    assert stop.stage is None
    assert (stop.out["status"], stop.out["reason"]) == ("failed", reason)
    assert (stop.state["status"], stop.state["reason"]) == ("failed", reason)
    assert "an e-invoice" in stop.state["message"]  # says what is wrong, in its words
    _no_leak(stop)


class SaxonGivenTheBomb(SaxonRules):
    """Saxon itself (not a stand-in), handed an XML past its parser's limits in place of the
    invoice: how a refusal of the rules looks to the run, whatever refused."""

    def run(self, stylesheet: str, xml: str) -> tuple[Finding, ...]:
        return super().run(stylesheet, with_attributes(201).decode())


def test_a_refusal_of_the_rules_holds_the_invoice_with_its_reason_code(
    stack: Stack, shipped_rules: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    register("cii")
    # The module (the package exports a function of the same name).
    monkeypatch.setattr(sys.modules["docflow.einvoice.validate"], "rules_runner", SaxonGivenTheBomb)
    stop = first_stop(stack, "in/refused.xml", facturx_xml())
    assert stop.stage == "fields", stop.out
    (check,) = [c for c in stop.checks("einvoice-rule") if c["rule"] == "skipped"]
    assert "refused (rules-refused)" in check["message"]
    assert "SXXP0003" in check["message"]  # Saxon's error code, its only word that leaves
    assert stop.out["einvoice"]["valid"] is False
    _no_leak(stop)
