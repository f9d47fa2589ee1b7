"""The rules file travels with the execution: a document's route (its stages, their reviewers
and timeouts, a triage pick's stages) is fixed when it starts; a rules change made while it
waits applies to documents that start after the change. The change is made as a deploy makes
it: the file is rewritten and the function's process loads it anew (a new runtime)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from docflow.ids import DocumentRef
from docflow.rules.model import DEFAULT_RULES
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack
from tests.support.review_desk import Desk, call, open_desk

AGREEMENT = "SERVICES AGREEMENT\nThe parties hereby agree. Governing law: Delaware."
TWO_STAGES = """
[[document_types]]
name = "contract"
keywords = ["agreement", "hereby", "parties", "governing law"]
min_hits = 2
stages = ["legal", "finance"]

[stages.legal]
reviewers = ["legal@example.com"]
timeout_seconds = 600

[stages.finance]
reviewers = {finance}
timeout_seconds = 600
"""
FORM = {"content-type": "application/x-www-form-urlencoded"}


def recipients(doc: DocumentRef, stage: int) -> set[str]:
    return {
        to
        for m in moto_sent_mail()
        for link in links_in([m])
        if link.run_id == doc.run_id and link.stage_index == stage
        for to in m["to"]
    }


def approve(token: str, **form: str) -> None:
    answer = call("POST", f"/review/{token}", urlencode({"decision": "approve", **form}), **FORM)
    assert answer["statusCode"] == 200, answer["body"][:500]


def change_rules(desk: Desk, path: Path, text: str) -> None:
    """The rules file changes and the function loads it anew, as after a deploy."""
    path.write_text(text)
    load_settings.cache_clear()
    use_runtime(build_runtime().with_(callbacks=desk.callbacks))


@pytest.fixture
def rules_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "rules.toml"
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    return path


@pytest.fixture
def two_stage_desk(stack: Stack, rules_file: Path) -> Iterator[Desk]:
    rules_file.write_text(TWO_STAGES.format(finance='["finance@example.com"]'))
    load_settings.cache_clear()
    with open_desk(stack) as desk:
        yield desk


def test_a_reviewer_added_to_a_later_stage_reaches_only_documents_started_after(
    two_stage_desk: Desk, rules_file: Path
) -> None:
    desk = two_stage_desk
    waiting = desk.stack.upload("in/agreement.pdf", pdfs.text_pdf(AGREEMENT))
    arn = desk.start(waiting)
    (legal,) = desk.links(waiting, stage=0)

    wider = '["finance@example.com", "controller@example.com"]'
    change_rules(desk, rules_file, TWO_STAGES.format(finance=wider))
    approve(legal)
    desk.links(waiting, stage=1)
    assert recipients(waiting, 1) == {"finance@example.com"}

    later = desk.stack.upload("in/agreement-2.pdf", pdfs.text_pdf(AGREEMENT + "\nSecond."))
    desk.start(later)
    (legal_2,) = desk.links(later, stage=0)
    approve(legal_2)
    desk.links(later, stage=1, want=2)
    assert recipients(later, 1) == {"finance@example.com", "controller@example.com"}

    (finance,) = desk.links(waiting, stage=1)
    approve(finance)
    assert desk.result(arn)["status"] == "finalized"


@pytest.fixture
def triage_desk(stack: Stack, rules_file: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    rules_file.write_text(DEFAULT_RULES.read_text())
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "600")
    load_settings.cache_clear()
    with open_desk(stack) as desk:
        yield desk


def test_a_triage_pick_takes_the_stages_the_rules_had_when_the_document_started(
    triage_desk: Desk, rules_file: Path
) -> None:
    desk = triage_desk
    doc = desk.stack.upload("in/memo.pdf", pdfs.text_pdf("Memo\nPlease file this somewhere."))
    arn = desk.start(doc)
    (triage,) = desk.links(doc, stage=0)

    shipped = DEFAULT_RULES.read_text()
    before = '[stages.legal]\nreviewers = ["legal@example.com"]'
    assert before in shipped
    after = '[stages.legal]\nreviewers = ["new-counsel@example.com"]'
    change_rules(desk, rules_file, shipped.replace(before, after))

    approve(triage, docType="contract")
    desk.links(doc, stage=1)
    assert recipients(doc, 1) == {"legal@example.com"}
    (legal,) = desk.links(doc, stage=1)
    approve(legal)
    out = desk.result(arn)
    assert (out["status"], out["docType"]) == ("finalized", "contract")


LIABILITY = (
    "MASTER SERVICES AGREEMENT\nThe parties hereby agree to the terms and conditions below. "
    "Governing law: Delaware.",
    "LIABILITY\nThe supplier's liability under this agreement is unlimited.",
)


def high_risk_enrichment() -> dict:
    """A valid enrichment whose risk is high, as a batch job would answer it."""
    from docflow.enrich.base import EnrichInput, PageText
    from docflow.enrich.rules import RulesEnricher

    pages = [PageText(n + 1, text) for n, text in enumerate(LIABILITY)]
    answer = RulesEnricher().enrich(EnrichInput(pages, "contract", page_count=len(pages)))
    assert answer.valid and answer.enrichment["risk"]["level"] == "high"
    return dict(answer.enrichment)


def test_a_risk_stage_added_after_a_batch_wait_is_the_one_the_document_started_with(
    stack: Stack, rules_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from docflow.readmodel.queries import ReadModel

    rules_file.write_text(DEFAULT_RULES.read_text())
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "600")
    monkeypatch.setenv("DOCFLOW_PILE_ROLE_ARN", "arn:aws:iam::123456789012:role/batch")
    monkeypatch.setenv("DOCFLOW_PILE_MAX_WAIT_SECONDS", "600")
    load_settings.cache_clear()
    with open_desk(stack) as desk:
        doc = desk.stack.upload("backfill/msa.pdf", pdfs.text_pdf(*LIABILITY))
        arn = desk.start(doc)
        callback = desk.runner.wait_for_callback(arn, name="enrich batch create callback id")

        shipped = DEFAULT_RULES.read_text()
        before = '[stages.risk]\nreviewers = ["risk@example.com"]'
        assert before in shipped
        after = '[stages.risk]\nreviewers = ["new-risk@example.com"]'
        change_rules(desk, rules_file, shipped.replace(before, after))

        answer = {"status": "ok", "enrichment": high_risk_enrichment(), "jobId": "job-1"}
        desk.runner.send_callback_success(callback, json.dumps(answer).encode())
        desk.links(doc, stage=0)
        state = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
        risk = [s for s in state["stages"] if s["name"] == "risk"]
        assert [s["reviewers"] for s in risk] == [["risk@example.com"]]
