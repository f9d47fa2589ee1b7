"""`docflow show` of an e-invoice (#46.5): its lines and VAT breakdown, from final.json once
finalized, else from the einvoice.json its summary names; `--json` adds them as `einvoice`.

The read model's answer is given here (the state a run of the pipeline reports); the lines are
read from the test's S3 as `show` reads them in AWS."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.cli import queries
from docflow.settings import load_settings
from tests.support.aws import Stack
from tests.support.einvoice_review import (
    KOSIT_CII,
    breaking_rules,
    put_einvoice,
    stored_einvoice,
    summary_einvoice,
)


class Answers:
    """The read model's `show` for one state."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    def show(self, document_id: str) -> dict[str, Any]:
        return {"state": self.state, "history": []}


def show(
    state: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, as_json: bool
) -> int:
    monkeypatch.setattr(queries, "model", lambda: Answers(state))
    monkeypatch.setattr(queries, "maybe_local", lambda args: None)
    args = argparse.Namespace(document=state["documentId"], json=as_json, state=str(tmp_path))
    return queries.cmd_show(args)


def waiting(stack: Stack) -> tuple[dict[str, Any], dict[str, Any]]:
    xml = breaking_rules(KOSIT_CII.read_bytes())
    doc = stack.upload("incoming/xrechnung.xml", xml)
    stored = stored_einvoice(xml)
    put_einvoice(doc, stored)
    state = {
        "documentId": doc.document_id,
        "key": doc.key,
        "version": doc.version,
        "runId": doc.run_id,
        "status": "pending-review",
        "stageName": "fields",
        "docType": "invoice",
        "einvoice": summary_einvoice(doc, stored),
    }
    return state, stored


def test_show_prints_a_waiting_invoices_lines_from_its_einvoice_json(
    stack: Stack,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state, _ = waiting(stack)
    assert show(state, monkeypatch, tmp_path, as_json=False) == 0
    out = capsys.readouterr().out
    head = out.split("e-invoice   ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert head[0] == (
        "sent as XML data (UN/CEFACT CII), type code 380; follows "
        "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
    )
    assert head[1] == "rules       broken:"
    assert head[2].startswith("              BR-S-08   For each different value of VAT category")
    assert head[3].startswith("              BR-CO-15  Invoice total amount with VAT (BT-112) =")
    assert head[4] == "            and 2 warnings (shown, never routed)"
    key = state["einvoice"]["key"]
    assert f"lines (2; amounts in EUR, read from {key}):" in out
    table = out.split("lines (2;", 1)[1].splitlines()
    assert table[1].split("  ")[:2] == ["line", "description"]
    assert [c.strip() for c in table[3].split("  ") if c.strip()] == [
        "1",
        "Zeitschrift [...]",
        "1",
        "XPP (piece)",
        "288.79",
        "288.79",
        "S 7",
    ]
    assert [c.strip() for c in table[4].split("  ") if c.strip()][:2] == [
        "2",
        "Porto + Versandkosten",
    ]
    vat = out.split("VAT breakdown:\n", 1)[1].splitlines()
    assert vat[0].split("  ")[0] == "category"
    assert [c.strip() for c in vat[2].split("  ") if c.strip()] == [
        "S (standard rate)",
        "7",
        "324.86",
        "22.04",
    ]


def test_show_reads_a_finalized_invoices_lines_from_final_json(
    stack: Stack,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state, stored = waiting(stack)
    final = state["einvoice"]["key"].replace("/einvoice.json", "/final.json")
    recorded = {"lines": stored["invoice"]["lines"][:1], "vat": stored["invoice"]["vat"]}
    aws.client("s3").put_object(
        Bucket=load_settings().artifact_bucket, Key=final, Body=json.dumps(recorded).encode()
    )
    state = {**state, "status": "finalized", "resultKey": final}
    assert show(state, monkeypatch, tmp_path, as_json=True) == 0
    shown = json.loads(capsys.readouterr().out)
    einvoice = shown["einvoice"]
    assert (einvoice["readFrom"], einvoice["lines"], einvoice["vat"]) == (
        final,
        recorded["lines"],
        recorded["vat"],
    )
    assert (einvoice["source"], einvoice["currency"]) == ("xml", "EUR")
    assert {f["rule"]: f["severity"] for f in einvoice["findings"]} == {
        "BR-S-08": "fatal",
        "BR-CO-15": "fatal",
        "PEPPOL-EN16931-R008": "warning",
        "BR-DE-TMP-32": "warning",  # KoSIT's rules: an XRechnung
    }
    assert shown["state"]["einvoice"]["lines"] == 2  # the summary's count, unchanged
    assert show(state, monkeypatch, tmp_path, as_json=False) == 0
    assert f"lines (1; amounts in EUR, read from {final}):" in capsys.readouterr().out


def test_show_says_when_the_lines_cannot_be_read(
    stack: Stack,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state, _ = waiting(stack)
    state["einvoice"] = {**state["einvoice"], "key": "docs/nowhere/einvoice.json"}
    assert show(state, monkeypatch, tmp_path, as_json=False) == 0
    out = capsys.readouterr().out
    assert "lines       could not be read (docs/nowhere/einvoice.json is missing)" in out
    assert show(state, monkeypatch, tmp_path, as_json=True) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["einvoice"] == {
        "source": "xml",
        "currency": None,
        "findings": [],
        "readFrom": None,
        "lines": None,
        "vat": None,
    }


def test_show_of_any_other_document_has_no_einvoice(
    stack: Stack,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state = {"documentId": "d-" + "0" * 24, "status": "finalized", "docType": "contract"}
    assert show(state, monkeypatch, tmp_path, as_json=True) == 0
    assert "einvoice" not in json.loads(capsys.readouterr().out)
    assert show(state, monkeypatch, tmp_path, as_json=False) == 0
    assert "e-invoice" not in capsys.readouterr().out
