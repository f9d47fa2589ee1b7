"""Review stages through the durable testing runner: approve, reject, time out, two stages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from aws_durable_execution_sdk_python.execution import InvocationStatus
from aws_durable_execution_sdk_python.lambda_service import ErrorObject
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json


def decision(approved: bool, reviewer: str = "legal@example.com") -> bytes:
    return json.dumps(
        {
            "approved": approved,
            "reviewer": reviewer,
            "comment": "ok",
            "decidedAt": "2026-11-29T10:00:00+00:00",
        }
    ).encode()


@contextmanager
def started(stack: Stack, key: str, data: bytes) -> Iterator[tuple[DurableFunctionTestRunner, str]]:
    doc = stack.upload(key, data)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
        yield runner, arn


def callback(runner: DurableFunctionTestRunner, arn: str, index: int) -> str:
    return runner.wait_for_callback(arn, name=f"review-{index} create callback id", timeout=60)


def sent_mail() -> list:
    return ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages


def pending() -> list[dict]:
    return ReadModel(load_settings().table_name).pending().items


def test_contract_waits_for_legal_and_finalizes_on_approval(stack: Stack) -> None:
    with started(stack, "in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)) as (runner, arn):
        callback_id = callback(runner, arn, 0)
        waiting = pending()
        assert [(p["stageName"], p["status"]) for p in waiting] == [("legal", "pending-review")]
        links = waiting[0]["reviewLinks"]  # one per reviewer, named by id, never a URL
        assert sorted(link["reviewer"] for link in links) == [
            "counsel@example.com",
            "legal@example.com",
        ]
        assert all(len(link["linkId"]) == 12 for link in links)
        assert "http" not in json.dumps(waiting) and callback_id not in json.dumps(waiting)
        assert sorted(m.destinations["ToAddresses"][0] for m in sent_mail()) == [
            "counsel@example.com",
            "legal@example.com",
        ]

        runner.send_callback_success(callback_id, decision(True))
        callback_id_2 = callback(runner, arn, 1)  # the card number adds the privacy stage
        assert [p["stageName"] for p in pending()] == ["privacy"]
        runner.send_callback_success(callback_id_2, decision(True, "privacy@example.com"))
        result = runner.wait_for_result(arn, timeout=60)

    out = result_json(result)
    assert out["status"] == "finalized"
    assert out["docType"] == "contract"
    assert out["sensitive"] == {"card_number": 1}
    assert pending() == []
    assert len(sent_mail()) == 3  # no e-mail went out twice


def test_rejection_archives(stack: Stack) -> None:
    with started(stack, "in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)) as (runner, arn):
        runner.send_callback_success(callback(runner, arn, 0), decision(False))
        result = runner.wait_for_result(arn, timeout=60)

    out = result_json(result)
    assert (out["status"], out["reason"]) == ("archived", "rejected")
    assert result.get_step("archive").result is not None
    doc_id = out["documentId"]
    history = ReadModel(load_settings().table_name).show(doc_id)["history"]
    assert [h["status"] for h in history][-3:] == ["pending-review", "rejected", "archived"]
    # The archived run priced itself, review wait included, to the operation.
    cost = ReadModel(load_settings().table_name).show(doc_id)["state"]["cost"]
    assert cost["operations"] == len(result.get_all_operations())


def test_external_failure_archives_as_review_failed(stack: Stack) -> None:
    with started(stack, "in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)) as (runner, arn):
        runner.send_callback_failure(
            callback(runner, arn, 0),
            ErrorObject(message="indexer gave up", type="Boom", data=None, stack_trace=None),
        )
        result = runner.wait_for_result(arn, timeout=60)
    assert result_json(result)["reason"] == "review-failed"


def test_review_timeout_archives(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "2")
    load_settings.cache_clear()
    with started(stack, "in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)) as (runner, arn):
        result = runner.wait_for_result(arn, timeout=60)

    out = result_json(result)
    assert (out["status"], out["reason"]) == ("archived", "review-timeout")
    history = ReadModel(load_settings().table_name).show(out["documentId"])["history"]
    assert "timed-out" in [h["status"] for h in history]


def test_two_stages_in_order(stack: Stack) -> None:
    with started(stack, "in/po.pdf", pdfs.text_pdf(pdfs.PURCHASE_ORDER)) as (runner, arn):
        first = callback(runner, arn, 0)
        assert [p["stageName"] for p in pending()] == ["procurement"]
        runner.send_callback_success(first, decision(True, "procurement@example.com"))
        second = callback(runner, arn, 1)
        assert [p["stageName"] for p in pending()] == ["finance"]
        runner.send_callback_success(second, decision(True, "finance@example.com"))
        result = runner.wait_for_result(arn, timeout=60)

    assert result.status is InvocationStatus.SUCCEEDED
    out = result_json(result)
    assert (out["status"], out["docType"]) == ("finalized", "purchase-order")
    names = [op.name for op in result.operations]
    assert names.index("review-0") < names.index("review-1") < names.index("finalize")


def test_garbage_decision_is_a_rejection(stack: Stack) -> None:
    with started(stack, "in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)) as (runner, arn):
        runner.send_callback_success(callback(runner, arn, 0), b"yes please")
        result = runner.wait_for_result(arn, timeout=60)
    assert result_json(result)["reason"] == "invalid-decision"
