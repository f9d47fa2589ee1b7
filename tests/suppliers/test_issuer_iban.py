"""Issue 36 through the real handler (durable testing runner, moto, the shipped rules): the
issuer's IBAN in an invoice's footer is where it wants to be paid, not a privacy finding; a
customer's IBAN in a "debit my account" line still is, and so is an IBAN in a contract; the
rules file's `issuer_iban_types = []` restores the plain rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.readmodel.queries import ReadModel
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.suppliers.papers import CUSTOMER_IBAN, blauwal_invoice, paper
from tests.support.aws import Stack, result_json


def run(stack: Stack, data: bytes, stages: int = 0) -> tuple[dict, list[str]]:
    """Run to the end, approving the `stages` review stages expected on the way (a run that
    waits at more never ends, and the test fails); (result, stage names waited at)."""
    doc = stack.upload("in/doc.pdf", data)
    waited: list[str] = []
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=180)
        for index in range(stages):
            callback = runner.wait_for_callback(
                arn, name=f"review-{index} create callback id", timeout=120
            )
            (item,) = ReadModel(load_settings().table_name).pending().items
            waited.append(item["stageName"])
            runner.send_callback_success(callback, json.dumps({"approved": True}).encode())
        result = runner.wait_for_result(arn, timeout=120)
    out = result_json(result)
    assert out["status"] == "finalized", out
    return out, waited


KNOWN_LABEL = {"label": "Rechnungsnummer", "number": "RE-2026-0042"}


def test_the_issuers_iban_in_the_footer_is_no_privacy_finding(
    stack: Stack, shipped_rules: None
) -> None:
    out, waited = run(stack, blauwal_invoice(**KNOWN_LABEL))
    assert out["sensitive"] == {"iban": 1}
    assert "privacy" not in waited
    assert waited == []
    (iban,) = out["ibans"]
    assert iban["iban"] == "DE•••• 3000" and iban["owner"] == "issuer", iban
    assert iban["why"] in ("footer", "beside-issuer-name"), iban


def test_a_customers_iban_in_a_debit_line_goes_to_privacy(
    stack: Stack, shipped_rules: None
) -> None:
    mandate = [f"Bitte buchen Sie von meinem Konto ab - debit my account {CUSTOMER_IBAN}"]
    out, waited = run(stack, blauwal_invoice(**KNOWN_LABEL, extra=mandate), stages=1)
    assert waited == ["privacy"]
    owners = {i["iban"]: (i["owner"], i["why"]) for i in out["ibans"]}
    assert owners["NL•••• 4300"] == ("other", "debit-mandate")
    assert owners["DE•••• 3000"][0] == "issuer"


def test_a_contract_with_an_iban_goes_to_privacy_as_before(
    stack: Stack, shipped_rules: None
) -> None:
    contract = paper(
        [
            "SERVICES AGREEMENT",
            "This agreement is made between the parties hereby named.",
            "Governing law: Germany. Signature of both parties below.",
        ],
        footer=["Payments to IBAN DE89 3704 0044 0532 0130 00"],
    )
    out, waited = run(stack, contract, stages=2)
    assert out["docType"] == "contract"
    assert waited == ["legal", "privacy"]


def test_the_rules_switch_restores_the_plain_rule(
    stack: Stack, shipped_rules: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = DEFAULT_RULES.read_text(encoding="utf-8").replace(
        'issuer_iban_types = ["invoice", "credit-note", "purchase-order"]',
        "issuer_iban_types = []",
    )
    assert "issuer_iban_types = []" in rules
    path = tmp_path / "rules.toml"
    path.write_text(rules, encoding="utf-8")
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    load_settings.cache_clear()
    out, waited = run(stack, blauwal_invoice(**KNOWN_LABEL), stages=1)
    assert waited == ["privacy"]
    assert out["ibans"][0]["owner"] == "issuer"  # judged all the same, and shown
