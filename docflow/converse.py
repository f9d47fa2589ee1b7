"""Bedrock Runtime Converse with one forced tool: the request, and the tool's input read back.

Extraction (`record_fields`), a packet's page sort (`record_pages`) and the enrichment
(`record_enrichment`) each ask the model for JSON the same way: a system prompt, one user
message, one tool whose input schema is the answer's schema, and `toolChoice` forcing that tool,
so the answer is the tool's input and never prose. The request's keys keep one order (the
Bedrock emulator and the recorded tests compare requests byte for byte).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime.type_defs import (
        InferenceConfigurationTypeDef,
        MessageTypeDef,
        SystemContentBlockTypeDef,
        ToolConfigurationTypeDef,
    )


class ConverseRequest(TypedDict, total=False):
    """A Converse body (a batch record's `modelInput` has the same shape, without tools): boto3's
    own request shape, but for `modelId`, which the enrichment adds at the call."""

    modelId: str
    system: list[SystemContentBlockTypeDef]
    messages: list[MessageTypeDef]
    toolConfig: ToolConfigurationTypeDef
    inferenceConfig: InferenceConfigurationTypeDef


def forced_tool_request(
    *,
    system: str,
    prompt: str,
    tool: str,
    description: str,
    schema: Mapping[str, Any],
    max_tokens: int,
    model_id: str | None = None,
) -> ConverseRequest:
    """A Converse body whose answer is `tool`'s input; without `modelId` when none is given
    (the enrichment adds it at the call, after estimating the request's tokens)."""
    request: ConverseRequest = {"modelId": model_id} if model_id is not None else {}
    request.update(
        {
            "system": [{"text": system}],
            "messages": [{"role": "user", "content": [{"text": prompt}]}],
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": tool,
                            "description": description,
                            "inputSchema": {"json": schema},
                        }
                    }
                ],
                "toolChoice": {"tool": {"name": tool}},
            },
            "inferenceConfig": {"maxTokens": max_tokens, "temperature": 0.0},
        }
    )
    return request


def tool_input(answer: Mapping[str, Any], tool: str) -> Any:
    """The input the model gave `tool` in a Converse answer, or None when it called no tool."""
    content = ((answer.get("output") or {}).get("message") or {}).get("content") or []
    for block in content:
        use = block.get("toolUse") if isinstance(block, dict) else None
        if use and use.get("name") == tool:
            return use.get("input")
    return None


def usage_of(answer: Mapping[str, Any]) -> dict[str, int]:
    """Tokens in and out, from a Converse answer or an InvokeModel-shaped batch output."""
    usage = answer.get("usage") or {}
    return {
        "inputTokens": int(usage.get("inputTokens", usage.get("input_tokens", 0)) or 0),
        "outputTokens": int(usage.get("outputTokens", usage.get("output_tokens", 0)) or 0),
    }
