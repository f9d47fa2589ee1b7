"""The `bedrock` engine: Bedrock Runtime Converse with one forced tool, `record_pages`, whose
input is a call per page (type and "starts a document" score), so the model answers JSON.

The model sees each page's text (cut to a few thousand characters a page), not its layout. The
answer is held to the schema: a page it left out or answered out of range goes on the part
before it (score 0) and is named in the reasons (`model-skipped`), never raised. Tokens in and
out are returned for the cost. Locally the Converse emulator answers with the rules engine
(`docflow.local.emulators.bedrock`): an emulator of the API, not of a model's accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from docflow import aws
from docflow.converse import forced_tool_request, tool_input, usage_of
from docflow.packets.engine import EngineAnswer, PacketPage, PageCall
from docflow.readers.throttling import ThrottlePolicy

TOOL = "record_pages"
PAGE_CHARS = 1_500  # a page's head and foot say where it sits: titles, counters, totals
SYSTEM = (
    "You sort the pages of a scanned packet: several business documents (invoices, purchase "
    "orders, contracts, ...) one after another. For every page, record its document type and "
    "how sure you are, 0 to 1, that a new document starts on that page, with record_pages. "
    "Page 1 always starts one. A page counter that restarts, a title, a new document number "
    "or a new issuer start one; a counter that goes on, a repeated number or a copy do not."
)
# The tool's input schema (JSON Schema): what `record_pages` is called with.
SCHEMA: Mapping[str, object] = {
    "type": "object",
    "properties": {
        "pages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "page": {"type": "integer", "minimum": 1},
                    "docType": {"type": "string", "maxLength": 40},
                    "start": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["page", "start"],
            },
        }
    },
    "required": ["pages"],
}


def page_text(text: str) -> str:
    """A page's head and foot when it is long: where titles, counters and totals sit."""
    if len(text) <= PAGE_CHARS:
        return text
    half = PAGE_CHARS // 2
    return f"{text[:half]}\n[...]\n{text[-half:]}"


def prompt(pages: Sequence[PacketPage]) -> str:
    parts = [f"--- page {p.page} ---\n{page_text(p.text) if p.readable else ''}" for p in pages]
    return "Sort the pages of this packet.\n\n" + "\n".join(parts)


class BedrockPageEngine:
    name = "bedrock"

    def __init__(self, model_id: str, policy: ThrottlePolicy) -> None:
        self.model_id, self.policy = model_id, policy

    def classify(self, pages: Sequence[PacketPage]) -> EngineAnswer:
        request = forced_tool_request(
            model_id=self.model_id,
            system=SYSTEM,
            prompt=prompt(pages),
            tool=TOOL,
            description="Record each page's type and start score.",
            schema=SCHEMA,
            max_tokens=64 + 24 * len(pages),
        )
        answer = self.policy.call(lambda: aws.client("bedrock-runtime").converse(**request))
        said = _answered(tool_input(answer, TOOL))
        calls = []
        for p in pages:
            entry = said.get(p.page)
            if p.page == pages[0].page:
                calls.append(PageCall(p.page, entry[0] if entry else "", 1.0, ("first-page",)))
            elif entry is None:
                calls.append(PageCall(p.page, "", 0.0, ("model-skipped",)))
            else:
                calls.append(PageCall(p.page, entry[0], entry[1], ("model",)))
        return EngineAnswer(tuple(calls), usage_of(answer))


def _answered(tool_input: Any) -> dict[int, tuple[str, float]]:
    """Page -> (type, score) for every well-formed entry; anything else is left out."""
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("pages"), list):
        return {}
    out: dict[int, tuple[str, float]] = {}
    for entry in tool_input["pages"]:
        if not isinstance(entry, dict):
            continue
        page, start = entry.get("page"), entry.get("start")
        if isinstance(page, bool) or not isinstance(page, int):
            continue
        if isinstance(start, bool) or not isinstance(start, int | float) or not 0 <= start <= 1:
            continue
        doc_type = entry.get("docType")
        out[page] = (str(doc_type)[:40] if isinstance(doc_type, str) else "", float(start))
    return out
