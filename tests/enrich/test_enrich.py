"""The enrichment's parts on their own: the schema, the requests, the rules engine, the Bedrock
engine against the local Converse emulator, and the tokens-per-minute budget on moto."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from docflow import aws
from docflow.enrich.base import EnrichInput, PageText
from docflow.enrich.bedrock import BedrockEnricher
from docflow.enrich.budget import WINDOW_S, TokenBudget
from docflow.enrich.mask import mask_strings
from docflow.enrich.request import (
    TOOL,
    InvalidAnswer,
    build_batch_model_input,
    build_request,
    estimate_tokens,
    parse_batch_answer,
)
from docflow.enrich.rules import RulesEnricher
from docflow.enrich.schema import SCHEMA, validate_enrichment
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.readers.throttling import ThrottlePolicy
from docflow.settings import load_settings
from tests.support.aws import Stack

RISKY_CONTRACT = """MASTER SERVICES AGREEMENT
This Master Services Agreement is made between Acme Supplies Ltd and Globex Corporation Inc.
Effective date: 2026-01-15. The parties hereby agree to the terms and conditions below.
This agreement renews automatically for successive one-year terms unless terminated.
The supplier's liability under this agreement is unlimited."""
SIGNATURE_PAGE = """IN WITNESS WHEREOF the parties have signed this agreement.
Signature: ______ for Acme Supplies Ltd
Signature: ______ for Globex Corporation Inc"""
PLAIN_INVOICE = """INVOICE INV-20931
Bill to: Example Corp
Invoice date: 2026-03-04. Amount due: 1,250.00 USD.
Payment terms: net 30"""


def contract(*pages: str, **facts: object) -> EnrichInput:
    return EnrichInput(
        pages=[PageText(n, text) for n, text in enumerate(pages, 1)],
        doc_type=str(facts.get("doc_type", "contract")),
        sensitive=facts.get("sensitive", {}),  # type: ignore[arg-type]
        review_on=("card_number", "us_ssn", "iban"),
        page_count=len(pages),
    )


def codes(answer: dict) -> list[tuple[str, int]]:
    return [(r["code"], r["page"]) for r in answer["risk"]["reasons"]]


def test_the_schema_is_valid_and_refuses_what_it_must() -> None:
    good = RulesEnricher().enrich(contract(RISKY_CONTRACT, SIGNATURE_PAGE)).enrichment
    assert validate_enrichment(good) == []
    too_long = json.loads(json.dumps(good))
    too_long["summary"]["abstract"] = "x" * 601
    problems = validate_enrichment(too_long)
    assert len(problems) == 1 and problems[0].startswith("summary/abstract")
    bad_date = json.loads(json.dumps(good))
    bad_date["summary"]["keyDates"] = [{"label": "due", "date": "15/01/2026"}]
    assert validate_enrichment(bad_date)[0].startswith("summary/keyDates/0/date")
    assert validate_enrichment({"summary": {}, "risk": {"level": "severe"}})


def test_rules_engine_reads_a_high_risk_contract() -> None:
    answer = RulesEnricher().enrich(contract(RISKY_CONTRACT, SIGNATURE_PAGE)).enrichment
    assert answer is not None
    assert answer["summary"]["title"] == "MASTER SERVICES AGREEMENT"
    assert answer["summary"]["abstract"].startswith("This Master Services Agreement is made")
    assert len(answer["summary"]["abstract"]) <= 600
    assert answer["summary"]["parties"] == ["Acme Supplies Ltd", "Globex Corporation Inc"]
    assert {"label": "Effective date", "date": "2026-01-15"} in answer["summary"]["keyDates"]
    assert answer["risk"]["level"] == "high"
    assert codes(answer) == [("unlimited-liability", 1), ("automatic-renewal", 1)]


def test_rules_engine_reasons_name_their_pages() -> None:
    terms = "Invoices are payable within 90 days of receipt.\nCard 4111 1111 1111 1111"
    document = contract(
        "SUPPLY AGREEMENT\nThe parties hereby agree.", terms, sensitive={"card_number": 1}
    )
    answer = RulesEnricher().enrich(document).enrichment
    assert answer is not None
    assert codes(answer) == [
        ("long-payment-terms", 2),
        ("missing-signature", 2),
        ("sensitive-data", 2),
    ]
    assert answer["risk"]["level"] == "high"  # three reasons of weight 1
    invoice = RulesEnricher().enrich(contract(PLAIN_INVOICE, doc_type="invoice")).enrichment
    assert invoice is not None and invoice["risk"] == {"level": "low", "reasons": []}


def test_masking_keeps_detected_values_out_of_the_small_part() -> None:
    masked = mask_strings({"abstract": "Card 4111 1111 1111 1111, SSN 123-45-6789.", "n": 3})
    assert "4111 1111" not in masked["abstract"] and "1111" in masked["abstract"]
    assert "123-45" not in masked["abstract"] and masked["n"] == 3


def test_requests_are_bounded_and_batch_answers_are_held_to_the_schema() -> None:
    pages = [PageText(n, "word " * 4000) for n in range(1, 201)]
    request = build_request(pages)
    assert request["toolConfig"]["toolChoice"] == {"tool": {"name": TOOL}}
    assert request["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"] == SCHEMA
    assert len(request["messages"][0]["content"][0]["text"]) <= 24_100
    assert estimate_tokens(request) < 12_000  # 200 dense pages cost what a few do
    batch = build_batch_model_input(pages)
    assert "toolConfig" not in batch and "JSON schema" in batch["messages"][0]["content"][0]["text"]

    good = RulesEnricher().enrich(contract(RISKY_CONTRACT)).enrichment
    fenced = {"output": {"message": {"content": [{"text": f"```json\n{json.dumps(good)}\n```"}]}}}
    assert parse_batch_answer(fenced) == good
    anthropic_shape = {"content": [{"type": "text", "text": json.dumps(good)}]}
    assert parse_batch_answer(anthropic_shape) == good
    with pytest.raises(InvalidAnswer, match="not JSON"):
        parse_batch_answer({"content": [{"type": "text", "text": "Here is a summary: ..."}]})
    with pytest.raises(InvalidAnswer, match="risk"):
        parse_batch_answer({"content": [{"text": json.dumps({"summary": good["summary"]})}]})


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., BedrockEmulator]]:
    started: list[BedrockEmulator] = []

    def start(**kw: object) -> BedrockEmulator:
        server = BedrockEmulator(**kw).start()  # type: ignore[arg-type]
        started.append(server)
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.url)
        aws.reset_clients()
        return server

    yield start
    for server in started:
        server.stop()
    aws.reset_clients()


def test_bedrock_engine_forces_the_tool_retries_throttles_and_counts_tokens(
    stack: Stack, emulator: Callable[..., BedrockEmulator]
) -> None:
    server = emulator(throttle_rate=0.5, seed=7)
    engine = BedrockEnricher("test.model-v1", ThrottlePolicy(8, 0.001, 0.01))
    answer = engine.enrich(contract(RISKY_CONTRACT, SIGNATURE_PAGE))
    assert answer.valid and answer.enrichment is not None
    assert answer.enrichment["risk"]["level"] == "high"
    assert answer.usage["inputTokens"] > 0 and answer.usage["outputTokens"] > 0
    assert server.stats.throttled > 0 and server.stats.answered == 1
    assert server.requests[-1]["toolConfig"]["toolChoice"] == {"tool": {"name": TOOL}}


def test_bedrock_engine_returns_a_schema_invalid_answer_instead_of_raising(
    stack: Stack, emulator: Callable[..., BedrockEmulator]
) -> None:
    emulator(bad_enrichments=1)
    engine = BedrockEnricher("test.model-v1", ThrottlePolicy(2, 0.001, 0.01))
    first = engine.enrich(contract(RISKY_CONTRACT))
    assert not first.valid and first.enrichment is None
    assert any(p.startswith("risk/level") for p in first.problems)
    assert engine.enrich(contract(RISKY_CONTRACT)).valid  # only the first answer was bad


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_budget_reserves_the_next_window_when_this_one_is_spent(stack: Stack) -> None:
    window = 1_000_020  # a multiple of 60
    clock = Clock(window + 20.0)  # 20 s into it
    budget = TokenBudget(
        load_settings().reader_lease_table, "m", 1000, clock=clock, rng=random.Random(1)
    )
    first = budget.admit(700)
    assert (first.admitted, first.window, first.wait_s) == (True, window, 0)
    second = budget.admit(400)  # 1,100 would overrun this minute: the next one is reserved
    assert second.admitted and second.window == window + WINDOW_S
    assert WINDOW_S - 20 <= second.wait_s <= WINDOW_S - 20 + 40
    budget.record(first.window, 700, 650)  # the call spent less than estimated
    assert budget.used(window) == 650
    assert budget.admit(2000).never
    full = TokenBudget(load_settings().reader_lease_table, "m", 1000, clock=clock, lookahead=2)
    refused = full.admit(700)  # neither window in reach has room for 700 more
    assert (refused.admitted, refused.never) == (False, False)
    assert refused.wait_s == 2 * WINDOW_S - 20  # ask again when the last one in reach ends


def test_budget_never_admits_more_than_its_tokens_per_minute_under_concurrency(
    stack: Stack,
) -> None:
    clock = Clock(2_000_000.0)
    table = load_settings().reader_lease_table
    limit = 20_000
    # Separate budget objects stand for separate Lambda instances; only the table is shared.
    budgets = [TokenBudget(table, "m", limit, clock=clock, lookahead=3) for _ in range(4)]
    asks = [random.Random(n).randint(500, 3000) for n in range(120)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        admissions = list(pool.map(lambda n: budgets[n % 4].admit(asks[n]), range(len(asks))))
    by_window: dict[int, int] = {}
    for admission in admissions:
        if admission.admitted:
            by_window[admission.window] = by_window.get(admission.window, 0) + admission.tokens
    assert len(by_window) == 3  # the asks were three minutes' worth and more
    for window, admitted in by_window.items():
        assert admitted <= limit
        assert budgets[0].used(window) == admitted  # every reservation is counted once
    assert any(not a.admitted for a in admissions)  # the rest were told to come back later


def test_the_emulator_answers_a_batch_records_prompt_with_json_text(
    stack: Stack, emulator: Callable[..., BedrockEmulator]
) -> None:
    """What a batch-inference emulator reuses: the same stand-in model, prompted JSON."""
    server = emulator()
    record = build_batch_model_input([PageText(1, RISKY_CONTRACT), PageText(2, SIGNATURE_PAGE)])
    answer = aws.client("bedrock-runtime").converse(modelId="test.model-v1", **record)
    assert answer["stopReason"] == "end_turn" and "toolUse" not in json.dumps(answer)
    enrichment = parse_batch_answer(answer)
    assert enrichment["risk"]["level"] == "high"
    assert server.stats.answered == 1


MEMO = """MEMO
To: All staff
From: Facilities
Date: 3 March 2026
Subject: parking on the north lot

From Monday the north lot is closed for resurfacing. Please park on the south lot until
further notice. Thank you for your patience."""


def test_a_memo_through_a_batch_record_is_low_risk() -> None:
    """Issue 44 item 12: the batch prompt's schema ("parties", "signature") made the stand-in
    model read every pile document as a contract, and a memo lacked a signature page."""
    from docflow.local.emulators.bedrock import prompt_of
    from docflow.local.emulators.stand_in import stand_in_enrichment

    for body in (build_batch_model_input, build_request):
        answer = stand_in_enrichment(prompt_of(body([PageText(1, MEMO)])))
        assert answer["risk"] == {"level": "low", "reasons": []}, body.__name__


def test_each_risk_rule_names_the_types_it_judges() -> None:
    from docflow.enrich.rules import RULES

    assert RULES["missing-signature"].types == {"contract"}
    assert RULES["missing-signature"].judges("contract")
    assert not RULES["missing-signature"].judges("unknown")
    assert RULES["unlimited-liability"].judges("memo")  # no types: it judges every document
    for doc_type in ("unknown", "report", "invoice"):
        answer = RulesEnricher().enrich(contract(MEMO, doc_type=doc_type)).enrichment
        assert answer is not None and answer["risk"]["level"] == "low", doc_type
    signed_less = RulesEnricher().enrich(contract(MEMO)).enrichment
    assert signed_less is not None and codes(signed_less) == [("missing-signature", 1)]
