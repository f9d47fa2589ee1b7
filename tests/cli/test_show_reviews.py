"""`docflow show` of a document a person has corrected and the run then sent on to a stage it
added itself (issue 57.4): the smudged invoice's total typed at `fields`, which makes it the same
supplier, date and total as an invoice already finalized, so the run adds `duplicate`. Until it
finalizes, `show` must print the corrected total (not the fields as classify read them) and both
stages (not only the route planned at classify).

The real handler on the durable testing runner, the status recorder writing the read model in
moto, and `show` reading it as a user's command does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.cli import main
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json

REVIEWER = "accounts@example.com"
# invoice.pdf's bill with its own number, its total smudged: a person types 1100.00, which
# makes it invoice.pdf's supplier, date and total (the amount key).
SMUDGED = pdfs.INVOICE_UNREADABLE_TOTAL.replace("INV-20931", "INV-20932")


def show(tmp_path: Path, capsys: pytest.CaptureFixture[str], *more: str) -> str:
    capsys.readouterr()
    assert main(["--state", str(tmp_path), "show", *more]) == 0
    return capsys.readouterr().out


def approve(runner: DurableFunctionTestRunner, arn: str, stage: int, **said: Any) -> None:
    callback = runner.wait_for_callback(arn, name=f"review-{stage} create callback id", timeout=60)
    decision = {"approved": True, "reviewer": REVIEWER, **said}
    runner.send_callback_success(callback, json.dumps(decision).encode())


def row(out: str, field: str) -> list[str]:
    """The fields table's row of `field`, split on its column gaps."""
    (line,) = [ln for ln in out.splitlines() if ln.startswith(f"{field} ")]
    return [cell for cell in line.split("  ") if cell.strip()]


def test_show_prints_a_corrected_value_and_a_stage_the_run_added_after_classify(
    stack: Stack, shipped_rules: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = stack.upload("incoming/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
    doc = stack.upload("incoming/invoice-smudged.pdf", pdfs.text_pdf(SMUDGED))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        done = result_json(runner.run(input=stack.event(first), execution_timeout=120))
        assert done["status"] == "finalized"
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        approve(runner, arn, 0, corrections={"total_amount": "1100.00"})
        # The run adds `duplicate`; the page and `show` are what the person has now.
        runner.wait_for_callback(arn, name="review-1 create callback id", timeout=60)

        out = show(tmp_path, capsys, doc.document_id)
        assert row(out, "total_amount")[1:2] == ["1100.00"]
        assert f"corrected by {REVIEWER} (was not read)" in row(out, "total_amount")[-1]
        stages = out.split("stages", 1)[1].split("\n\n", 1)[0]
        assert f"fields: approved by {REVIEWER}" in stages
        assert f"duplicate: waiting on {REVIEWER}" in stages and "added by the run" in stages
        assert "sent to a person: unreadable: total_amount" in out
        assert f"(corrected by {REVIEWER})" in out.split("sent to a person: unreadable", 1)[1]

        shown = json.loads(show(tmp_path, capsys, doc.document_id, "--json"))
        assert [(s["name"], s["status"]) for s in shown["stages"]] == [
            ("fields", "approved"),
            ("duplicate", "waiting"),
        ]
        assert [s.get("addedLater", False) for s in shown["stages"]] == [False, True]
        assert shown["stages"][0]["corrected"] == ["total_amount"]
        total = shown["fields"]["total_amount"]
        assert (total["value"], total["correctedBy"], total["original"]) == (
            "1100.00",
            REVIEWER,
            None,
        )
        # The read model's own state is left as recorded: what classify reported.
        assert "total_amount" not in shown["state"]["fields"]

        approve(runner, arn, 1, comment="a second delivery of another order")
        out = result_json(runner.wait_for_result(arn, timeout=60))
    assert out["status"] == "finalized"
    shown = json.loads(show(tmp_path, capsys, doc.document_id, "--json"))
    assert [(s["name"], s["status"]) for s in shown["stages"]] == [
        ("fields", "approved"),
        ("duplicate", "approved"),
    ]
    assert shown["stages"][1]["comment"] == "a second delivery of another order"
    # Finalized, the state's fields are the record's: the same value, said the same way.
    assert shown["fields"]["total_amount"] == shown["state"]["fields"]["total_amount"]
    assert row(show(tmp_path, capsys, doc.document_id), "total_amount")[1] == "1100.00"


def report(status: str, index: int, name: str, run: str = "r1", **payload: Any) -> dict[str, Any]:
    return {
        "status": status,
        "runId": run,
        "payload": {"stageIndex": index, "stageName": name, **payload},
    }


def test_a_planned_stage_not_reached_and_a_rejection_with_its_reason_and_comment() -> None:
    from docflow.cli.reviewed import stage_lines, stages_shown

    state: Any = {"runId": "r2", "stages": [{"name": "legal"}, {"name": "privacy"}]}
    history: Any = [
        report("pending-review", 0, "legal", run="r1", reviewers=["old@example.com"]),
        report("pending-review", 0, "legal", run="r2", reviewers=["a@example.com"]),
    ]
    shown = stages_shown(state, history)
    assert [(s["name"], s["status"]) for s in shown] == [
        ("legal", "waiting"),
        ("privacy", "planned"),
    ]
    assert shown[0]["reviewers"] == ["a@example.com"]  # the older run's reviews are not these
    history.append(
        report(
            "rejected",
            0,
            "legal",
            run="r2",
            reviewer="a@example.com",
            decidedAt="2026-12-07T10:00:00+00:00",
            rejectReason="other",
            comment="not ours",
        )
    )
    lines = stage_lines(stages_shown(state, history))
    assert lines == [
        "stages      legal: rejected by a@example.com at 2026-12-07T10:00:00+00:00 "
        "(reason other; comment: not ours)",
        "            privacy: not reached yet",
    ]
