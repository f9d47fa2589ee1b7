"""The SDK's OpenTelemetry plugin for the orchestrator, with the run's trace read from the
execution input.

The plugin's default extractor reads the X-Ray header Lambda sets; the starter's span is
not in it, so ours reads the input's `traceparent` (the starter's span) instead, or derives
the same from the run's ids when an input has none (a run started by `docflow reprocess` or
a packet). The invocation view: each invocation's span holds the operations it ran.
"""

from __future__ import annotations

from typing import Any

from docflow.errors import IntakeError
from docflow.ids import DocumentRef
from docflow.telemetry import spans
from docflow.telemetry.context import INPUT_KEY, TraceParent, for_run

PART = "docflow.orchestrator"


def run_parent(execution_input: Any) -> TraceParent | None:
    """The span the run's invocations hang under: the input's, or the run's derived root."""
    if not isinstance(execution_input, dict):
        return None
    carried = TraceParent.parse(execution_input.get(INPUT_KEY))
    if carried is not None:
        return carried
    try:
        doc = DocumentRef.from_event(execution_input)
    except IntakeError:
        return None
    return for_run(doc.run_id, doc.run_order)


def extract(info: Any) -> Any:
    """The plugin's context extractor (InvocationStartInfo -> ExtractedContext | None)."""
    from aws_durable_execution_sdk_python_otel import ExtractedContext, Sampling

    parent = run_parent(getattr(info, "execution_input", None))
    if parent is None:
        return None
    sampling = Sampling.SAMPLED if parent.sampled else Sampling.NOT_SAMPLED
    return ExtractedContext(
        trace_id=parent.trace_id, parent_span_id=parent.span_id, sampling=sampling
    )


def orchestrator_plugins() -> list[Any]:
    """The plugin factories for `@durable_execution(plugins=...)`: none when tracing is off
    (then the plugin, and OpenTelemetry, are never imported)."""
    provider = spans.provider()
    if provider is None:
        return []
    from aws_durable_execution_sdk_python_otel import (
        InvocationOtelPluginFactory,
        OtelPluginConfig,
    )

    config = OtelPluginConfig(
        # The global provider (the ADOT layer's) is resolved by the plugin per invocation.
        tracer_provider=None if spans.mode() == spans.OTLP else provider,  # type: ignore[arg-type]
        context_extractor=extract,
        instrument_name=PART,
        # Log lines carry the trace id in AWS; locally the host's root logger is left alone.
        enrich_logger=spans.mode() == spans.OTLP,
    )
    return [InvocationOtelPluginFactory(config)]
