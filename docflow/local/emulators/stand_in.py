"""The local stand-in model behind the Bedrock emulators (`bedrock.py`, `bedrock_batch.py`):
docflow's own rules engines answering what a model would be asked. A declared extraction tool
is answered by the rules engine over the prompt's text, reading the declaration its input
schema describes; a packet's page calls by the rules page engine; the enrich tool (and a batch
record's prompted JSON) by the rules classifier and rules enricher. It is not a language model
and measures nothing about one.

Apart from the emulators' servers because it loads the rules engine and the rules file (most
of a second): a stack starts its emulators at once and loads this on the first request.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, TypedDict, cast

from docflow.classify import RulesClassifier
from docflow.enrich.base import EnrichInput
from docflow.enrich.base import PageText as EnrichPage
from docflow.enrich.request import BATCH_INSTRUCTIONS
from docflow.enrich.request import TOOL as ENRICH_TOOL
from docflow.enrich.rules import RulesEnricher
from docflow.extract.base import PageInput
from docflow.extract.declarations.kinds import AMOUNT, NUMBER, PERCENT
from docflow.extract.declarations.model import FieldDecl, TypeDecl
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.local.emulators.declared import from_schema
from docflow.packets.bedrock_engine import TOOL as PAGES_TOOL
from docflow.packets.engine import PacketPage
from docflow.packets.rules_engine import RulesPageEngine
from docflow.rules.model import load_rules

if TYPE_CHECKING:
    from docflow.enrich.schema import Enrichment

__all__ = [
    "ENRICH_TOOL",
    "PAGES_TOOL",
    "declared_fields",
    "from_schema",
    "stand_in_enrichment",
    "stand_in_pages",
]

_PAGE = re.compile(r"^--- page (\d+) ---$", re.MULTILINE)
NUMERIC = (AMOUNT, NUMBER, PERCENT)


class FieldInput(TypedDict, total=False):
    """One field of a declared extraction tool's input, as the stand-in model writes it: a
    value or a table's rows, with its page and confidence. A careless model (`bad_answers`)
    writes a date as `day` and `month` instead."""

    value: str
    rows: list[dict[str, str]]
    page: int
    confidence: float
    day: int
    month: int


class PageCallInput(TypedDict):
    """One page's call in the pages tool's input."""

    page: int
    docType: str
    start: float


class PagesInput(TypedDict):
    """The pages tool's input, as the stand-in model writes it."""

    pages: list[PageCallInput]


def declared_fields(text: str, decl: TypeDecl, bad: bool = False) -> dict[str, FieldInput]:
    """A declared extraction tool's input: the rules engine's fields of `decl` in `text`, each
    with its page and confidence. `bad`: as a careless model writes them (prose for an amount,
    a date object, a table row with prose in its number cells, an unknown field)."""
    found = _engine().extract(_pages(text), decl).fields
    answer: dict[str, FieldInput] = {}
    for name, f in found.items():
        if decl.get(name) is None:
            continue
        where: FieldInput = {"page": f.page, "confidence": round(f.confidence, 3)}
        if f.rows is not None:
            answer[name] = {"rows": [dict(row) for row in f.rows], **where}
        else:
            answer[name] = {"value": f.value, **where}
    if bad:
        for table in decl.tables:
            entry = answer.setdefault(table.name, {"rows": [], "page": 1, "confidence": 0.9})
            entry["rows"].append(_bad_row(table))
        if "total_amount" in answer:
            answer["total_amount"]["value"] = "about eleven hundred dollars"
        if "invoice_date" in answer:
            answer["invoice_date"] = {"day": 4, "month": 3}
        answer["discount_code"] = {"value": "SAVE10", "page": 1, "confidence": 0.9}
    return answer


def _bad_row(table: FieldDecl) -> dict[str, str]:
    """A row as a careless model writes it: prose where the columns want numbers."""
    return {c.name: "a few" if c.kind in NUMERIC else "Widget" for c in table.columns}


def stand_in_enrichment(text: str, bad: bool = False) -> Enrichment:
    """The local stand-in model's enrichment of a prompt: docflow's rules classifier names
    the type and counts sensitive data, the rules enricher writes summary and risk. `bad`
    answers something the schema refuses (an over-long abstract, an unknown risk level)."""
    pages = [EnrichPage(p.page, p.text) for p in _pages(text)]
    classifier = _classifier()
    found = classifier.classify(classifier.extract("\n".join(p.text for p in pages)), None)
    document = EnrichInput(
        pages=pages,
        doc_type=found["docType"],
        sensitive=found["sensitive"],
        review_on=classifier.rules.review_on,
        page_count=max((p.page for p in pages), default=1),
    )
    # The rules enricher's answer has the schema's shape (EnrichAnswer types it loosely).
    answer = cast("Enrichment", RulesEnricher().enrich(document).enrichment or {})
    if bad:
        answer["summary"]["abstract"] = ("An abstract far over the limit. " * 30).strip()
        answer["risk"]["level"] = "severe"
    return answer


def stand_in_pages(text: str) -> PagesInput:
    """The stand-in model's page calls: docflow's rules page engine over the prompt's pages."""
    pages = [PacketPage(p.page, p.text) for p in _pages(text)]
    calls = RulesPageEngine(_classifier().rules).classify(pages).calls
    return {
        "pages": [
            {"page": c.page, "docType": c.doc_type, "start": round(c.start, 4)} for c in calls
        ]
    }


@lru_cache(maxsize=1)
def _engine() -> RulesEngine:
    return RulesEngine()


@lru_cache(maxsize=1)
def _classifier() -> RulesClassifier:
    return RulesClassifier(load_rules())


def _pages(text: str) -> list[PageInput]:
    # A batch record's prompt ends with the instructions and the schema, whose words
    # ("parties", "signature") would make any document read as a contract.
    text = text.split(f"\n\n{BATCH_INSTRUCTIONS}", 1)[0]
    marks = list(_PAGE.finditer(text))
    if not marks:
        return [PageInput(1, text, "textlayer", 100.0)]
    pages = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        pages.append(PageInput(int(m[1]), text[m.end() : end].strip("\n"), "textlayer", 100.0))
    return pages
