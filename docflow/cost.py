"""What a document cost: usage counts and a dollar estimate, from prices kept here only.

`PRICES` is the one list of prices in docflow (bench/cost_model.py reads it too), each with
its source. They are list prices for us-east-1 and change; treat the dollar figure as an
estimate for comparing documents and days, not as a bill.

Usage comes from the run itself (docflow.pipeline.meter): durable operations and retries,
the milliseconds its steps ran, pages by engine, and the calls and tokens of paid services.
A step that calls another paid service (the `extract` step's Bedrock Converse, Textract
AnalyzeExpense or AnalyzeDocument) hands its counts in as `extra` with the keys of
`EXTRA_USAGE`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast


class Prices(TypedDict):
    """Each price in US dollars per its unit, as its name says."""

    durable_usd_per_million_operations: float
    step_functions_standard_usd_per_million_transitions: float
    lambda_usd_per_gb_second_x86: float
    lambda_usd_per_million_requests: float
    textract_detect_document_text_usd_per_page: float
    textract_analyze_expense_usd_per_page: float
    textract_analyze_document_usd_per_page: float
    textract_analyze_document_tables_added_usd_per_page: float
    bedrock_usd_per_million_input_tokens: float
    bedrock_usd_per_million_output_tokens: float
    bedrock_batch_usd_per_million_input_tokens: float
    bedrock_batch_usd_per_million_output_tokens: float
    sources: dict[str, str]


PRICES: Prices = {
    "durable_usd_per_million_operations": 8.0,
    "step_functions_standard_usd_per_million_transitions": 25.0,
    "lambda_usd_per_gb_second_x86": 0.0000166667,
    "lambda_usd_per_million_requests": 0.20,
    "textract_detect_document_text_usd_per_page": 0.0015,
    "textract_analyze_expense_usd_per_page": 0.01,
    # AnalyzeDocument is billed per page by the features asked together: Queries alone and
    # Tables alone at one price, Tables + Queries at a combined one. Unverified: the figures
    # below are the list prices as remembered (first million pages, us-east-1); the public
    # page could not be read when they were written. Check before trusting the dollars.
    "textract_analyze_document_usd_per_page": 0.015,
    # What TABLES adds to a page asked QUERIES too (Tables + Queries $0.020 - Queries $0.015).
    "textract_analyze_document_tables_added_usd_per_page": 0.005,
    "bedrock_usd_per_million_input_tokens": 0.25,
    "bedrock_usd_per_million_output_tokens": 1.25,
    # Batch inference is half the on-demand price for the models that offer it.
    "bedrock_batch_usd_per_million_input_tokens": 0.125,
    "bedrock_batch_usd_per_million_output_tokens": 0.625,
    "sources": {
        "durable": "AWS Lambda pricing, durable functions (operations), as quoted in "
        "shared/PLATFORM-FACTS.md",
        "step_functions": "AWS Step Functions pricing, Standard workflows, state transitions",
        "lambda": "AWS Lambda pricing, x86, us-east-1 (GB-second and requests)",
        "textract": "Amazon Textract pricing, DetectDocumentText, AnalyzeExpense and "
        "AnalyzeDocument (Queries, Tables, Tables + Queries; unverified), first million pages "
        "a month, us-east-1",
        "bedrock": "Amazon Bedrock pricing, on-demand, Anthropic Claude 3 Haiku, us-east-1 "
        "(per million input / output tokens); batch inference at 50% of on-demand",
    },
}
# The orchestrator's MemorySize in template.yaml; Lambda sets the variable in AWS.
DEFAULT_MEMORY_MB = 2048
# Counts another step may add (docflow.pipeline.extract and .enrich, for example).
EXTRA_USAGE = (
    "bedrockCalls",
    "bedrockInputTokens",
    "bedrockOutputTokens",
    "bedrockBatchCalls",  # records answered by a batch inference job
    "bedrockBatchInputTokens",
    "bedrockBatchOutputTokens",
    "analyzeExpensePages",
    # AnalyzeDocument calls (one page each; a page asked more than 15 queries takes several),
    # and those of them that asked TABLES beside QUERIES (priced as the combination).
    "analyzeDocumentPages",
    "analyzeDocumentTablePages",
)


@dataclass(frozen=True)
class Usage:
    operations: int
    retries: int
    step_ms: int
    pages: Mapping[str, int]
    memory_mb: int = DEFAULT_MEMORY_MB
    extra: Mapping[str, int] = field(default_factory=dict)
    # Steps, and those the service timed (start and end stamped apart); None: not counted.
    steps: int | None = None
    steps_timed: int | None = None

    @property
    def textract_calls(self) -> int:
        """Billed DetectDocumentText calls: one per page Textract answered."""
        return int(self.pages.get("textract", 0))


class _CostCounts(TypedDict):
    docType: str
    operations: int
    retries: int
    stepMs: int
    memoryMb: int
    pages: dict[str, int]  # by engine
    textractCalls: int
    usdBy: dict[str, float]  # durable, lambda, textract, bedrock
    usd: float


class CostEstimate(_CostCounts, total=False):
    """`estimate`'s answer: the `cost` of the read model and the finalized record (docs/cli.md's
    COST), with the `EXTRA_USAGE` counts beside these."""

    steps: int
    stepsTimed: int | None
    bedrockCalls: int
    bedrockInputTokens: int
    bedrockOutputTokens: int
    bedrockBatchCalls: int
    bedrockBatchInputTokens: int
    bedrockBatchOutputTokens: int
    analyzeExpensePages: int
    analyzeDocumentPages: int
    analyzeDocumentTablePages: int


def estimate(usage: Usage, doc_type: str | None = None) -> CostEstimate:
    """The `cost` object on the finalized record and in the read model (JSON-native)."""
    unknown = set(usage.extra) - set(EXTRA_USAGE)
    if unknown:
        raise ValueError(f"unknown usage counts: {sorted(unknown)}")
    extra = {k: int(usage.extra.get(k, 0)) for k in EXTRA_USAGE}
    gb_s = usage.memory_mb / 1024 * usage.step_ms / 1000
    usd = {
        "durable": (usage.operations + usage.retries)
        * PRICES["durable_usd_per_million_operations"]
        / 1e6,
        "lambda": gb_s * PRICES["lambda_usd_per_gb_second_x86"],
        "textract": usage.textract_calls * PRICES["textract_detect_document_text_usd_per_page"]
        + extra["analyzeExpensePages"] * PRICES["textract_analyze_expense_usd_per_page"]
        + extra["analyzeDocumentPages"] * PRICES["textract_analyze_document_usd_per_page"]
        + extra["analyzeDocumentTablePages"]
        * PRICES["textract_analyze_document_tables_added_usd_per_page"],
        "bedrock": extra["bedrockInputTokens"]
        * PRICES["bedrock_usd_per_million_input_tokens"]
        / 1e6
        + extra["bedrockOutputTokens"] * PRICES["bedrock_usd_per_million_output_tokens"] / 1e6
        + extra["bedrockBatchInputTokens"]
        * PRICES["bedrock_batch_usd_per_million_input_tokens"]
        / 1e6
        + extra["bedrockBatchOutputTokens"]
        * PRICES["bedrock_batch_usd_per_million_output_tokens"]
        / 1e6,
    }
    # A dict, not the TypedDict's call: the keys' order is the record's (and a checkpoint's).
    estimated = {
        "docType": doc_type or "unknown",
        "operations": usage.operations,
        "retries": usage.retries,
        "stepMs": usage.step_ms,
        **(
            {"steps": usage.steps, "stepsTimed": usage.steps_timed}
            if usage.steps is not None
            else {}
        ),
        "memoryMb": usage.memory_mb,
        "pages": dict(sorted(usage.pages.items())),
        "textractCalls": usage.textract_calls,
        **extra,
        "usdBy": {k: round(v, 8) for k, v in usd.items()},
        "usd": round(sum(usd.values()), 8),
    }
    return cast("CostEstimate", estimated)


def step_time(cost: Mapping[str, Any]) -> str:
    """The step time as far as it was measured: a step the runner stamped at one instant (the
    local runner, when its start and end checkpoints arrive together) has no time, and saying
    `0 ms` (and $0 of Lambda) would claim one."""
    steps, timed = cost.get("steps"), cost.get("stepsTimed")
    if steps is None or timed is None or timed >= steps:
        return f"{cost.get('stepMs', 0)} ms of steps"
    if not timed:
        return "step time not measured (so no Lambda cost)"
    return f"{cost.get('stepMs', 0)} ms of steps ({timed} of {steps} timed, the rest not measured)"


def format_cost(cost: Mapping[str, Any]) -> str:
    """One line for people: `$0.001560 (12 operations, 840 ms of steps, 1 Textract page)`."""
    parts = [f"{cost.get('operations', 0)} operations", step_time(cost)]
    if cost.get("textractCalls"):
        parts.append(f"{cost['textractCalls']} Textract pages")
    tokens = int(cost.get("bedrockInputTokens", 0)) + int(cost.get("bedrockOutputTokens", 0))
    if tokens:
        parts.append(f"{cost.get('bedrockCalls', 0)} Bedrock calls, {tokens} tokens")
    batch = int(cost.get("bedrockBatchInputTokens", 0)) + int(
        cost.get("bedrockBatchOutputTokens", 0)
    )
    if batch:
        parts.append(f"{cost.get('bedrockBatchCalls', 0)} batch records, {batch} tokens")
    return f"${float(cost.get('usd', 0)):.6f} ({', '.join(parts)})"


def bedrock_on_demand_usd(cost: Mapping[str, Any]) -> float:
    """What the document's Bedrock tokens (batch ones included) cost at the on-demand price."""
    tokens_in = int(cost.get("bedrockInputTokens", 0)) + int(cost.get("bedrockBatchInputTokens", 0))
    tokens_out = int(cost.get("bedrockOutputTokens", 0)) + int(
        cost.get("bedrockBatchOutputTokens", 0)
    )
    return (
        tokens_in * PRICES["bedrock_usd_per_million_input_tokens"]
        + tokens_out * PRICES["bedrock_usd_per_million_output_tokens"]
    ) / 1e6


def enrich_note(cost: Mapping[str, Any], enrichment: Mapping[str, Any]) -> str:
    """Which engine enriched the document and at what price, so that a batch figure is read
    beside the same tokens on demand through Bedrock, never beside the free local `rules`
    engine (a pile at "half the price" otherwise looked dearer than a `run`)."""
    engine, mode = enrichment.get("engine"), enrichment.get("mode")
    if not engine:
        return ""
    if engine != "bedrock":
        return f"enriched by the local {engine} engine: no model, free"
    usd = float((cost.get("usdBy") or {}).get("bedrock", 0))
    if mode == "batch":
        return (
            f"enriched by Bedrock batch inference: ${usd:.6f} at the batch price, "
            f"${bedrock_on_demand_usd(cost):.6f} on demand"
        )
    return f"enriched by Bedrock on demand: ${usd:.6f}"


def cost_line(state: Mapping[str, Any]) -> str | None:
    """A document's cost as one line (None before it has one): `docflow show`, the trace;
    it names the engine that enriched the document, and that engine's price."""
    cost = state.get("cost")
    if not isinstance(cost, dict):
        return None
    note = enrich_note(cost, state.get("enrichment") or {})
    return format_cost(cost) + (f"; {note}" if note else "")
