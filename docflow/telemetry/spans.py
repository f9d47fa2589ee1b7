"""The parts' own spans (the starter's, the callback API's, the recorder's) and the current
span's `traceparent`, for a part to hand on.

`DOCFLOW_OTEL` picks the exporter: `file` (the local stack: JSON Lines under
`DOCFLOW_OTEL_DIR`), `otlp` (AWS: the global provider, which the ADOT layer configures to
export over OTLP), anything else: no tracing, and OpenTelemetry is never imported.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docflow.telemetry.context import TraceParent
from docflow.telemetry.files import DIR_ENV

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

MODE_ENV = "DOCFLOW_OTEL"
FILE, OTLP = "file", "otlp"
Attributes = Mapping[str, str | int | float | bool]
_providers: dict[tuple[str, str], Any] = {}
_lock = threading.Lock()


def mode() -> str:
    value = os.environ.get(MODE_ENV, "").strip().lower()
    return value if value in (FILE, OTLP) else ""


def provider() -> TracerProvider | None:
    """This process's provider for the configured mode (built once), or None: tracing off."""
    chosen = mode()
    if not chosen:
        return None
    key = (chosen, os.environ.get(DIR_ENV, ""))
    with _lock:
        if key not in _providers:
            _providers[key] = _build(*key)
        return _providers[key]


def _build(chosen: str, folder: str) -> TracerProvider:
    if chosen == OTLP:
        from opentelemetry import trace

        return trace.get_tracer_provider()
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from docflow.telemetry.jsonl import JsonLinesExporter

    if not folder:
        raise ValueError(f"{MODE_ENV}=file needs {DIR_ENV}")
    built = SdkProvider(resource=Resource.create({"service.name": "docflow"}))
    built.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(Path(folder))))
    return built


def tracer(part: str) -> Tracer | None:
    found = provider()
    return found.get_tracer(part) if found is not None else None


@contextmanager
def span(
    part: str,
    name: str,
    parent: TraceParent | None,
    attributes: Attributes | None = None,
    root: TraceParent | None = None,
) -> Iterator[None]:
    """A span of `part` under `parent` (a remote span context), or, given `root`, the span
    with exactly root's ids (the run's first span, which the execution input names).

    An exception is marked on the span by its type only: its message may quote a value."""
    chosen = tracer(part)
    if chosen is None:
        yield
        return
    from opentelemetry import context as otel_context
    from opentelemetry import trace
    from opentelemetry.trace import Status, StatusCode

    if root is not None:
        started = _root_span(chosen, name, root, attributes)
    else:
        started = chosen.start_span(name, context=_remote(parent), attributes=attributes)
    token = otel_context.attach(trace.set_span_in_context(started))
    try:
        yield
    except BaseException as exc:
        started.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        otel_context.detach(token)
        started.end()


def _remote(parent: TraceParent | None) -> Any:
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

    if parent is None:
        return Context()  # a new trace, not whatever was current in this thread
    flags = TraceFlags(TraceFlags.SAMPLED if parent.sampled else TraceFlags.DEFAULT)
    remote = SpanContext(parent.trace_id, parent.span_id, is_remote=True, trace_flags=flags)
    return trace.set_span_in_context(NonRecordingSpan(remote))


def _root_span(chosen: Tracer, name: str, root: TraceParent, attributes: Attributes | None) -> Any:
    """The SDK's OpenTelemetry plugin's own deterministic id generator, used as it uses it:
    installed on this part's tracer, overriding the ids of exactly one span."""
    from aws_durable_execution_sdk_python_otel import DeterministicIdGenerator
    from opentelemetry.context import Context

    if not hasattr(chosen, "id_generator"):  # a no-op tracer: nothing is recorded anyway
        return chosen.start_span(name, context=Context(), attributes=attributes)
    ids = DeterministicIdGenerator.install_on_tracer(chosen)  # type: ignore[arg-type]
    with ids.use_ids(trace_id=root.trace_id, span_id=root.span_id):
        return chosen.start_span(name, context=Context(), attributes=attributes)


def current() -> TraceParent | None:
    """The active span's context in this thread (a step's attempt span, a part's span)."""
    if not mode():
        return None
    from opentelemetry import trace

    found = trace.get_current_span().get_span_context()
    if not found.is_valid:
        return None
    return TraceParent(found.trace_id, found.span_id, bool(found.trace_flags.sampled))


def flush() -> None:
    """Hand the finished spans to the exporter before the function's invocation ends."""
    found = provider()
    force = getattr(found, "force_flush", None)
    if callable(force):
        force()
