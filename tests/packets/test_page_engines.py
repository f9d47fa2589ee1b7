"""Page-level classification: the signals a page gives, how the rules engine weighs them, the
plan of parts by the rules' thresholds, and the Bedrock engine through the Converse emulator."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from docflow import aws
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.packets import PacketPage, PageCall, propose
from docflow.packets.factory import build_page_engine
from docflow.packets.plan import part_batches
from docflow.packets.rules_engine import RulesPageEngine, score_pages
from docflow.packets.signals import read_signals
from docflow.pdf import open_pdf
from docflow.readers.textlayer import TextLayerReader
from docflow.rules.model import load_rules
from docflow.rules.packets import PacketRules
from docflow.settings import Settings
from tests.kit import pdfgen
from tests.support.aws import RULES_FAST
from tests.support.packets import CONTRACT, INVOICE_A, INVOICE_B, INVOICE_C, REPORT, packet

RULES = load_rules(RULES_FAST)


def pages_of(data: bytes, scanned: bool = False) -> list[PacketPage]:
    out = []
    with open_pdf(data) as pdf:
        for number in range(1, len(pdf) + 1):
            read = TextLayerReader().read(pdf, number)
            out.append(PacketPage(number, read.text, read.words, pdf.raw[number - 1].get_size()))
    return out


def test_a_page_says_its_title_counter_number_and_total() -> None:
    page = pages_of(packet(INVOICE_A))[0]
    signals = read_signals(1, page.text, page.words, page.size, RULES)
    assert (signals.title, signals.doc_type, signals.counter) == ("invoice", "invoice", (1, 2))
    assert signals.numbers == frozenset({"INV-1001"})
    assert not signals.closes
    last = pages_of(packet(INVOICE_A))[1]
    assert read_signals(2, last.text, last.words, last.size, RULES).closes


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("INVOICE", "invoice"),
        ("Invoice 103767", "invoice"),
        ("Rechnung # RE-20170509/505", "invoice"),
        ("PURCHASE ORDER: PO123456789", "purchase-order"),
        ("SERVICES AGREEMENT", "contract"),
        ("Invoice date: 2026-03-04", ""),  # a label, not a title
        ("Dati del contratto", ""),  # a section heading
        ("Lines details purchase order: PO-1", ""),
    ],
)
def test_titles_open_a_short_line_at_the_top(line: str, title: str) -> None:
    signals = read_signals(1, f"{line}\nsome words below\n", (), (612, 792), RULES)
    assert signals.title == title


def test_counters_in_seven_languages() -> None:
    for text, counter in [
        ("Page 2 of 3", (2, 3)),
        ("Seite 1 von 2", (1, 2)),
        ("Pág. 1/2", (1, 2)),
        ("Página 2 de 2", (2, 2)),
        ("Pagina 3 di 4", (3, 4)),
        ("Page 4", (4, 0)),
        ("Page 5 of 3", None),
    ]:
        assert read_signals(1, f"x\n{text}\n", (), (612, 792), None).counter == counter


def test_the_rules_engine_finds_the_four_documents_and_says_why() -> None:
    calls = (
        RulesPageEngine(RULES)
        .classify(pages_of(packet(INVOICE_A, INVOICE_B, INVOICE_C, CONTRACT)))
        .calls
    )
    starts = [c.page for c in calls if c.start >= 0.8]
    assert starts == [1, 3, 4, 5]
    assert all(c.start < 0.35 for c in calls if c.page not in starts)
    assert "counter-continues" in calls[1].reasons and "same-number" in calls[1].reasons
    assert {"counter-restart", "title", "type-change"} <= set(calls[4].reasons)
    assert calls[4].doc_type == "contract"


def test_a_copy_of_the_page_before_goes_with_it() -> None:
    original = "LA EMPRESA SA\nFACTURA\nORIGINAL\n" + "\n".join(
        f"Item {i} 10,00" for i in range(30)
    )
    duplicate = original.replace("ORIGINAL", "DUPLICADO")
    calls = RulesPageEngine(RULES).classify(pages_of(pdfgen.text_pdf(original, duplicate))).calls
    assert "repeat" in calls[1].reasons and calls[1].start < 0.05


def test_a_blank_page_and_a_refused_one_go_with_the_part_before() -> None:
    pages = [*pages_of(packet(INVOICE_B)), PacketPage(2, ""), PacketPage(3, "", readable=False)]
    calls = RulesPageEngine(RULES).classify(pages).calls
    assert [c.reasons for c in calls[1:]] == [("blank",), ("refused",)]
    assert [c.start for c in calls[1:]] == [pytest.approx(0.0, abs=1e-3), 0.0]


def test_the_plan_proposes_parts_and_names_unsure_boundaries() -> None:
    rules = PacketRules(start_above=0.8, unsure_above=0.35)
    calls = [
        PageCall(1, "invoice", 1.0),
        PageCall(2, "", 0.5),  # unsure, below the band's middle: not proposed
        PageCall(3, "report", 0.7),  # unsure, above it: proposed
        PageCall(4, "report", 0.1),
        PageCall(5, "contract", 0.95),
    ]
    proposal = propose(calls, rules)
    assert [(p.first, p.last, p.doc_type) for p in proposal.parts] == [
        (1, 2, "invoice"),
        (3, 4, "report"),
        (5, 5, "contract"),
    ]
    assert proposal.unsure == (2, 3)


def test_an_unsure_cover_page_is_sent_to_a_person() -> None:
    calls = (
        RulesPageEngine(RULES, RULES.packets.proposal_above)
        .classify(pages_of(packet(INVOICE_B, REPORT)))
        .calls
    )
    proposal = propose(calls, RULES.packets)
    assert [(p.first, p.last) for p in proposal.parts] == [(1, 2), (3, 3)]
    assert proposal.unsure == (2,)


def test_part_batches_bound_the_steps() -> None:
    assert part_batches(0) == []
    assert part_batches(4) == [(0, 4)]
    assert part_batches(100) == [(0, 25), (25, 50), (50, 75), (75, 100)]
    assert len(part_batches(5000)) == 50


def test_scores_stay_between_zero_and_one() -> None:
    signals = [
        read_signals(n, "INVOICE\nPage 1 of 1\nTotal 5", (), (612, 792), RULES) for n in (1, 2)
    ]
    assert all(0.0 <= c.start <= 1.0 for c in score_pages(signals))


@pytest.fixture
def converse(monkeypatch: pytest.MonkeyPatch) -> Iterator[BedrockEmulator]:
    emulator = BedrockEmulator(throttle_rate=0.3, seed=2).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", emulator.url)
    for key, value in {"AWS_ACCESS_KEY_ID": "t", "AWS_SECRET_ACCESS_KEY": "t"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    aws.reset_clients()
    yield emulator
    emulator.stop()
    aws.reset_clients()


def test_the_bedrock_engine_forces_its_tool_and_reads_the_calls(converse: BedrockEmulator) -> None:
    settings = replace(
        Settings(), packet_engine="bedrock", throttle_base_delay_s=0.01, throttle_max_delay_s=0.05
    )
    engine = build_page_engine(settings, RULES)
    answer = engine.classify(pages_of(packet(INVOICE_A, INVOICE_B, CONTRACT)))
    assert engine.name == "bedrock"
    assert [c.page for c in answer.calls if c.start >= 0.8] == [1, 3, 4]
    assert answer.usage["inputTokens"] > 0
    request = converse.requests[-1]
    assert request["toolConfig"]["toolChoice"] == {"tool": {"name": "record_pages"}}
    assert "--- page 4 ---" in request["messages"][0]["content"][0]["text"]
