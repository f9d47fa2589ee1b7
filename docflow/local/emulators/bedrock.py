"""Bedrock Runtime's Converse on loopback: an emulator, not a model.

moto's bedrock-runtime does not implement Converse. This server speaks its REST-JSON protocol
(`POST /model/{modelId}/converse`), so the production `bedrock` engine, botocore and docflow's
throttle retries run unchanged against it (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). It answers the
forced tool call by running docflow's rules engine over the text in the request, reading the
declaration the tool's input schema describes (`declared.py`: names, kinds and tables from the
schema, labels from the stack's rules file), and counts tokens as characters / 4. It is not a
language model and measures nothing about one.

A packet's page calls (`record_pages`, docflow.packets.bedrock_engine) are answered by docflow's
rules page engine over the pages' text in the prompt (no layout: the model sees none either).

The enrich step's tool (`record_enrichment`) is answered by a local stand-in model: docflow's
rules classifier and rules enricher over the prompt's pages (`stand_in_enrichment`). A request
without tools (a batch record's prompted JSON) gets the same enrichment as JSON text, so a
batch emulator can answer its records with the same stand-in. Faults on request:

    throttle_rate    a share of calls refused with ThrottlingException (HTTP 429), seeded
    bad_answers      tool input that violates the schema (prose for an amount, a date object,
                     an unknown field, a table row with prose in its number cells; an unknown
                     risk level), to show a bad answer never fails a document
    bad_enrichments  the first N enrichment answers violate the schema, the rest are valid
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

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
from docflow.local.emulators.base import LoopbackEmulator, Reply, Request
from docflow.local.emulators.declared import from_schema
from docflow.packets.bedrock_engine import TOOL as PAGES_TOOL
from docflow.packets.engine import PacketPage
from docflow.packets.rules_engine import RulesPageEngine
from docflow.rules.model import load_rules

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime.literals import StopReasonType
    from mypy_boto3_bedrock_runtime.type_defs import (
        ContentBlockOutputTypeDef,
        ConverseMetricsTypeDef,
        ConverseOutputTypeDef,
        TokenUsageTypeDef,
    )

    from docflow.converse import ConverseRequest
    from docflow.enrich.schema import Enrichment

_PAGE = re.compile(r"^--- page (\d+) ---$", re.MULTILINE)
NUMERIC = (AMOUNT, NUMBER, PERCENT)


class ErrorAnswer(TypedDict):
    message: str


class ConverseAnswer(TypedDict):
    """Converse's answer, as much of it as the engines read (with AWS's types); a batch
    record's `modelOutput` has the same shape without `metrics`."""

    output: ConverseOutputTypeDef
    stopReason: StopReasonType
    usage: TokenUsageTypeDef
    metrics: NotRequired[ConverseMetricsTypeDef]


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


@dataclass
class ConverseStats:
    """What the emulator answered, for the tests and the stack's summary."""

    calls: int = 0
    answered: int = 0
    throttled: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class BedrockEmulator(LoopbackEmulator):
    def __init__(
        self,
        port: int = 0,
        throttle_rate: float = 0.0,
        seed: int = 0,
        bad_answers: bool = False,
        bad_enrichments: int = 0,
    ) -> None:
        super().__init__(port=port, throttle_rate=throttle_rate, seed=seed)
        self.bad_answers = bad_answers
        self.bad_enrichments = bad_enrichments
        self.stats = ConverseStats()
        self.requests: list[ConverseRequest] = []
        self._rules = RulesEngine()

    def handle(self, request: Request) -> Reply:
        status, error, answer = self.answer(request.path, request.body)
        return Reply(status, answer, {"x-amzn-ErrorType": error} if error else {})

    def answer(self, path: str, body: bytes) -> tuple[int, str, ConverseAnswer | ErrorAnswer]:
        """(HTTP status, error type or "", JSON answer)."""
        if not re.fullmatch(r"/model/[^/]+/converse", path):
            return 404, "UnknownOperationException", {"message": f"{path} is not emulated"}
        with self._lock:
            self.stats.calls += 1
            throttle = self.draw_throttle()
            if throttle:
                self.stats.throttled += 1
        if throttle:
            return 429, "ThrottlingException", {"message": "Too many requests"}
        try:
            request = json.loads(body)
            tools = (request.get("toolConfig") or {}).get("tools") or []
            tool = tools[0]["toolSpec"] if tools else None
            schema = tool["inputSchema"]["json"] if tool else {}
            text = prompt_of(request)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return 400, "ValidationException", {"message": "malformed Converse request"}
        with self._lock:
            self.requests.append(cast("ConverseRequest", request))
            bad_enrichment = self.bad_enrichments > 0 or self.bad_answers
            if tool is None or tool["name"] == ENRICH_TOOL:
                self.bad_enrichments = max(0, self.bad_enrichments - 1)
        if tool is None:
            # Prompted JSON (a batch record's modelInput): the answer is text, not a tool call.
            answer = json.dumps(stand_in_enrichment(text, bad_enrichment))
            content: ContentBlockOutputTypeDef = {"text": answer}
        elif tool["name"] == ENRICH_TOOL:
            content = self._tool_use(tool, stand_in_enrichment(text, bad_enrichment))
        elif tool["name"] == PAGES_TOOL:
            content = self._tool_use(tool, stand_in_pages(text))
        else:
            content = self._tool_use(tool, self._tool_input(text, from_schema(schema)))
        tokens_in, tokens_out = len(body) // 4, len(json.dumps(content)) // 4
        with self._lock:
            self.stats.answered += 1
            self.stats.input_tokens += tokens_in
            self.stats.output_tokens += tokens_out
        return (
            200,
            "",
            {
                "output": {"message": {"role": "assistant", "content": [content]}},
                "stopReason": "tool_use" if tool else "end_turn",
                "usage": {
                    "inputTokens": tokens_in,
                    "outputTokens": tokens_out,
                    "totalTokens": tokens_in + tokens_out,
                },
                "metrics": {"latencyMs": 1},
            },
        )

    def _tool_use(
        self, tool: Mapping[str, Any], tool_input: Mapping[str, object]
    ) -> ContentBlockOutputTypeDef:
        with self._lock:
            use_id = f"tooluse_{self.stats.calls}"
        return {
            "toolUse": {"toolUseId": use_id, "name": str(tool["name"]), "input": dict(tool_input)}
        }

    def _tool_input(self, text: str, decl: TypeDecl) -> dict[str, FieldInput]:
        pages = _pages(text)
        found = self._rules.extract(pages, decl).fields
        answer: dict[str, FieldInput] = {}
        for name, f in found.items():
            if decl.get(name) is None:
                continue
            where: FieldInput = {"page": f.page, "confidence": round(f.confidence, 3)}
            if f.rows is not None:
                answer[name] = {"rows": [dict(row) for row in f.rows], **where}
            else:
                answer[name] = {"value": f.value, **where}
        if self.bad_answers:
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


def prompt_of(request: ConverseRequest) -> str:
    """The user text of a Converse request (or of a batch record's Converse-shaped input)."""
    return "\n".join(
        block["text"]
        for message in request["messages"]
        for block in message["content"]
        if "text" in block
    )


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
