"""One OpenTelemetry trace per document run, from the starter through the orchestrator's
invocations, the callback API and the status recorder.

`context` (pure) derives a run's trace id and its root span from the run's own ids, and reads
and writes W3C `traceparent` values; `spans` opens the parts' spans and knows the current one;
`plugin` hands the SDK's OpenTelemetry plugin to the orchestrator, fed from the execution
input; `jsonl` is the local stack's exporter (a JSON Lines file a trace under the state folder)
and its reader. OpenTelemetry itself is imported only when `DOCFLOW_OTEL` turns tracing on: in
AWS the ADOT layer brings it, and without the layer the functions run untraced.

What a span may carry: ids (document, run, operation), names of steps and stages, statuses,
counts. Never a token, a callback id, a reviewer's comment or a field value.
"""
