"""The production `textract-expense` and `bedrock` engines against their local emulators over
loopback (moto implements neither AnalyzeExpense nor Converse), throttled on purpose, and
answering badly on purpose: a bad answer is a missing field and a person, never a failure."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.extract import PageInput, build_engine
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.engines.schema import field_schema
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.local.emulators.expense import ExpenseEmulator
from docflow.pdf import open_pdf
from docflow.readmodel.queries import ReadModel
from docflow.rules.model import DEFAULT_RULES, load_rules
from docflow.runtime import use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json
from tests.support.engines import Endpoint, settings_for

INVOICE_NAMES = load_rules(DEFAULT_RULES).fields.types["invoice"].scalar_names
EXPECTED = {
    "invoice_number": "INV-20931",
    "invoice_date": "2026-03-04",
    "due_date": "2026-04-03",
    "currency": "USD",
    "net_amount": "1000.00",
    "tax_amount": "100.00",
    "total_amount": "1100.00",
}


def scanned_page(text: str) -> PageInput:
    data = pdfs.scanned_pdf(text)
    with open_pdf(data) as pdf:
        png = pdf.render_png(1, 200)
    return PageInput(1, "", "tesseract", 90.0, image=lambda: png)


def test_textract_expense_reads_fields_under_the_cap(stack: Stack, endpoint: Endpoint) -> None:
    emulator = ExpenseEmulator(throttle_rate=0.4, seed=3).start()
    try:
        endpoint("TEXTRACT", emulator.url)
        page = scanned_page(pdfs.INVOICE_WITH_FIELDS)
        settings = settings_for("textract-expense", reader_concurrency_cap=2)
        engines = [build_engine(settings) for _ in range(3)]  # three "instances"
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(
                pool.map(lambda n: engines[n % 3].extract([page], INVOICE_NAMES), range(4))
            )
    finally:
        emulator.stop()
    for result in results:
        values = {n: f.value for n, f in result.fields.items()}
        assert {n: values.get(n) for n in EXPECTED} == EXPECTED
        assert all(0 < f.confidence <= 1 for f in result.fields.values())
        assert result.fields["total_amount"].box  # AnalyzeExpense gives geometry
    assert emulator.stats.throttled > 0 and emulator.stats.answered == 4
    # Bounded by the cap. Whether two calls overlapped depends on the scheduler (a 2-core
    # machine under load may serialize them), so only the bound is asserted here; the cap's
    # own tests (tests/readers/test_limiter.py) show it reached.
    assert 1 <= emulator.stats.peak_in_flight <= 2


def test_textract_expense_values_that_do_not_parse_are_dropped(
    stack: Stack, endpoint: Endpoint
) -> None:
    emulator = ExpenseEmulator(bad_values=True).start()
    try:
        endpoint("TEXTRACT", emulator.url)
        result = build_engine(settings_for("textract-expense")).extract(
            [scanned_page(pdfs.INVOICE_WITH_FIELDS)], INVOICE_NAMES
        )
    finally:
        emulator.stop()
    assert "total_amount" not in result.fields and "net_amount" not in result.fields
    assert {r["field"] for r in result.rejected} == {"net_amount", "tax_amount", "total_amount"}
    assert result.fields["invoice_number"].value == "INV-20931"
    rules = load_rules(DEFAULT_RULES).fields
    fields = {n: f.summary() for n, f in result.fields.items()}
    unreadable = {r["field"] for r in result.rejected}
    checks = check_fields(fields, rules.types["invoice"], rules, unreadable)
    assert ("total_amount", "unreadable") in {(c.field, c.code) for c in checks}


def test_bedrock_forces_the_schema_tool_and_records_tokens(
    stack: Stack, endpoint: Endpoint
) -> None:
    emulator = BedrockEmulator(throttle_rate=0.5, seed=1).start()
    try:
        endpoint("BEDROCK_RUNTIME", emulator.url)
        engine = build_engine(settings_for("bedrock", extract_model_id="test.model-v1"))
        page = PageInput(1, pdfs.INVOICE_WITH_FIELDS, "textlayer", 100.0)
        result = engine.extract([page], INVOICE_NAMES)
    finally:
        emulator.stop()
    values = {n: f.value for n, f in result.fields.items()}
    assert {n: values.get(n) for n in EXPECTED} == EXPECTED
    assert emulator.stats.throttled > 0
    assert result.usage["inputTokens"] > 0 and result.usage["outputTokens"] > 0
    request = emulator.requests[-1]
    assert request["toolConfig"]["toolChoice"] == {"tool": {"name": "record_fields"}}
    spec = request["toolConfig"]["tools"][0]["toolSpec"]
    assert spec["inputSchema"]["json"] == field_schema(INVOICE_NAMES)


def test_a_schema_violating_model_answer_sends_the_document_to_a_person(
    stack: Stack,
    endpoint: Endpoint,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    emulator = BedrockEmulator(bad_answers=True).start()
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(DEFAULT_RULES))
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "30")
    monkeypatch.setenv("DOCFLOW_EXTRACT_ENGINE", "bedrock")
    load_settings.cache_clear()
    use_runtime(None)
    try:
        endpoint("BEDROCK_RUNTIME", emulator.url)
        doc = stack.upload("in/invoice.pdf", pdfs.text_pdf(pdfs.INVOICE_WITH_FIELDS))
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
            arn = runner.run_async(input=stack.event(doc), execution_timeout=120)
            callback_id = runner.wait_for_callback(
                arn, name="review-0 create callback id", timeout=60
            )
            waiting = ReadModel(load_settings().table_name).pending().items
            decision = {"approved": False, "reviewer": "accounts@example.com"}
            runner.send_callback_success(callback_id, json.dumps(decision).encode())
            result = runner.wait_for_result(arn, timeout=60)
    finally:
        emulator.stop()
        use_runtime(None)
    assert waiting[0]["stageName"] == "fields"
    codes = {(c["field"], c["code"]) for c in waiting[0]["fieldChecks"]}
    assert {("total_amount", "unreadable"), ("invoice_date", "unreadable")} <= codes
    assert waiting[0]["fields"]["invoice_number"]["value"] == "INV-20931"
    assert result_json(result)["status"] == "archived"  # decided by a person, not failed
