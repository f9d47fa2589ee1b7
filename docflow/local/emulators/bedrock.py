"""Bedrock Runtime's Converse on loopback: an emulator, not a model.

moto's bedrock-runtime does not implement Converse. This server speaks its REST-JSON protocol
(`POST /model/{modelId}/converse`), so the production `bedrock` engine, botocore and docflow's
throttle retries run unchanged against it (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). Its answers come
from a local stand-in model (`stand_in.py`). It answers the
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
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

from docflow.local.emulators.base import LoopbackEmulator, Reply, Request

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime.literals import StopReasonType
    from mypy_boto3_bedrock_runtime.type_defs import (
        ContentBlockOutputTypeDef,
        ConverseMetricsTypeDef,
        ConverseOutputTypeDef,
        TokenUsageTypeDef,
    )

    from docflow.converse import ConverseRequest


class ErrorAnswer(TypedDict):
    message: str


class ConverseAnswer(TypedDict):
    """Converse's answer, as much of it as the engines read (with AWS's types); a batch
    record's `modelOutput` has the same shape without `metrics`."""

    output: ConverseOutputTypeDef
    stopReason: StopReasonType
    usage: TokenUsageTypeDef
    metrics: NotRequired[ConverseMetricsTypeDef]


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
        # The stand-in model loads the rules engine: on the first answer, not as a stack starts.
        from docflow.local.emulators import stand_in

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
            if tool is None or tool["name"] == stand_in.ENRICH_TOOL:
                self.bad_enrichments = max(0, self.bad_enrichments - 1)
        if tool is None:
            # Prompted JSON (a batch record's modelInput): the answer is text, not a tool call.
            answer = json.dumps(stand_in.stand_in_enrichment(text, bad_enrichment))
            content: ContentBlockOutputTypeDef = {"text": answer}
        elif tool["name"] == stand_in.ENRICH_TOOL:
            content = self._tool_use(tool, stand_in.stand_in_enrichment(text, bad_enrichment))
        elif tool["name"] == stand_in.PAGES_TOOL:
            content = self._tool_use(tool, stand_in.stand_in_pages(text))
        else:
            declared = stand_in.from_schema(schema)
            fields = stand_in.declared_fields(text, declared, self.bad_answers)
            content = self._tool_use(tool, fields)
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


def prompt_of(request: ConverseRequest) -> str:
    """The user text of a Converse request (or of a batch record's Converse-shaped input)."""
    return "\n".join(
        block["text"]
        for message in request["messages"]
        for block in message["content"]
        if "text" in block
    )
