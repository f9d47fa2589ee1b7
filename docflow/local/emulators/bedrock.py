"""Bedrock Runtime's Converse on loopback: an emulator, not a model.

moto's bedrock-runtime does not implement Converse. This server speaks its REST-JSON protocol
(`POST /model/{modelId}/converse`), so the production `bedrock` engine, botocore and docflow's
throttle retries run unchanged against it (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). It answers the
forced tool call by running docflow's rules engine over the text in the request, limited to the
fields the tool's input schema names, and counts tokens as characters / 4. It is not a language
model and measures nothing about one. Two faults on request:

    throttle_rate   a share of calls refused with ThrottlingException (HTTP 429)
    bad_answers     tool input that violates the schema (prose for an amount, a date object,
                    an unknown field), to show a bad answer never fails a document
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from docflow.extract.base import PageInput
from docflow.extract.rules import RulesEngine
from docflow.local.emulators.base import LoopbackEmulator, Reply, Request

_PAGE = re.compile(r"^--- page (\d+) ---$", re.MULTILINE)


@dataclass
class ConverseStats:
    calls: int = 0
    answered: int = 0
    throttled: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class BedrockEmulator(LoopbackEmulator):
    def __init__(
        self, port: int = 0, throttle_rate: float = 0.0, seed: int = 0, bad_answers: bool = False
    ) -> None:
        super().__init__(port=port, throttle_rate=throttle_rate, seed=seed)
        self.bad_answers = bad_answers
        self.stats = ConverseStats()
        self.requests: list[dict[str, Any]] = []
        self._rules = RulesEngine()

    def handle(self, request: Request) -> Reply:
        status, error, answer = self.answer(request.path, request.body)
        return Reply(status, answer, {"x-amzn-ErrorType": error} if error else {})

    def answer(self, path: str, body: bytes) -> tuple[int, str, dict[str, Any]]:
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
            tool = request["toolConfig"]["tools"][0]["toolSpec"]
            names = list(tool["inputSchema"]["json"]["properties"])
            text = "\n".join(
                block["text"]
                for message in request["messages"]
                for block in message["content"]
                if "text" in block
            )
        except (ValueError, KeyError, IndexError, TypeError):
            return 400, "ValidationException", {"message": "malformed Converse request"}
        with self._lock:
            self.requests.append(request)
        tool_input = self._tool_input(text, names)
        tokens_in, tokens_out = len(body) // 4, len(json.dumps(tool_input)) // 4
        with self._lock:
            self.stats.answered += 1
            self.stats.input_tokens += tokens_in
            self.stats.output_tokens += tokens_out
        return (
            200,
            "",
            {
                "output": {
                    "message": {
                        "role": "assistant",
                        "content": [
                            {
                                "toolUse": {
                                    "toolUseId": f"tooluse_{self.stats.calls}",
                                    "name": tool["name"],
                                    "input": tool_input,
                                }
                            }
                        ],
                    }
                },
                "stopReason": "tool_use",
                "usage": {
                    "inputTokens": tokens_in,
                    "outputTokens": tokens_out,
                    "totalTokens": tokens_in + tokens_out,
                },
                "metrics": {"latencyMs": 1},
            },
        )

    def _tool_input(self, text: str, names: list[str]) -> dict[str, Any]:
        pages = _pages(text)
        found = self._rules.extract(pages, names).fields
        answer: dict[str, Any] = {
            name: {"value": f.value, "page": f.page, "confidence": round(f.confidence, 3)}
            for name, f in found.items()
        }
        if self.bad_answers:
            if "total_amount" in answer:
                answer["total_amount"]["value"] = "about eleven hundred dollars"
            if "invoice_date" in answer:
                answer["invoice_date"] = {"day": 4, "month": 3}
            answer["discount_code"] = {"value": "SAVE10", "page": 1, "confidence": 0.9}
        return answer


def _pages(text: str) -> list[PageInput]:
    marks = list(_PAGE.finditer(text))
    if not marks:
        return [PageInput(1, text, "textlayer", 100.0)]
    pages = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        pages.append(PageInput(int(m[1]), text[m.end() : end].strip("\n"), "textlayer", 100.0))
    return pages
