"""The `bedrock` engine: Converse on-demand with one forced tool whose input schema is the
enrichment schema. The answer is held to the schema, never trusted: a schema-invalid answer
comes back as problems, and the step decides what to do (call once more, then review).
Throttles are retried with backoff and jitter inside the shared, bounded `ThrottlePolicy`.
"""

from __future__ import annotations

from docflow import aws
from docflow.converse import ConverseRequest, tool_input, usage_of
from docflow.enrich.base import EnrichAnswer, EnrichInput
from docflow.enrich.request import TOOL, build_request
from docflow.enrich.schema import Enrichment, validate_enrichment
from docflow.readers.throttling import ThrottlePolicy


class BedrockEnricher:
    name = "bedrock"

    def __init__(self, model_id: str, policy: ThrottlePolicy) -> None:
        self.model_id, self.policy = model_id, policy

    def enrich(self, document: EnrichInput) -> EnrichAnswer:
        return self.answer(build_request(document.pages))

    def answer(self, request: ConverseRequest) -> EnrichAnswer:
        """One Converse call with a prepared request (as `build_request` makes it)."""
        answer = self.policy.call(
            lambda: aws.client("bedrock-runtime").converse(modelId=self.model_id, **request)
        )
        usage = usage_of(answer)
        value = tool_input(answer, TOOL)
        if value is None:
            return EnrichAnswer(self.name, None, ["the model called no tool"], usage)
        problems = validate_enrichment(value)
        valid: Enrichment | None = None if problems else value.copy()  # held to the schema
        return EnrichAnswer(self.name, valid, problems, usage)
