"""A trace's spans as `docflow trace --otel` shows them: the JSON shape, and an indented tree
a terminal can show (one line a span: its start, duration, part and name)."""

from __future__ import annotations

from docflow.telemetry.shapes import SpanJson, SpanSummary

_PART_PREFIX = "docflow."


def summary(trace_hex: str, run_id: str, spans: list[SpanJson]) -> SpanSummary:
    """The `--json` answer: the trace's id, which trace ids its spans carry (one, when all is
    well), how many spans each part wrote, and the spans, oldest start first."""
    parts: dict[str, int] = {}
    for s in spans:
        part = str(s.get("part") or "")
        parts[part] = parts.get(part, 0) + 1
    return {
        "traceId": trace_hex,
        "runId": run_id,
        "traceIds": sorted({str(s.get("traceId")) for s in spans}),
        "parts": parts,
        "spans": spans,
    }


def render(found: SpanSummary) -> str:
    spans = found["spans"]
    if not spans:
        return f"trace {found['traceId']}: no spans written for run {found['runId']}"
    ids = {s["spanId"] for s in spans}
    children: dict[str | None, list[SpanJson]] = {}
    for s in spans:
        parent = s.get("parentSpanId")
        children.setdefault(parent if parent in ids else None, []).append(s)
    parts = ", ".join(f"{k.removeprefix(_PART_PREFIX)} {v}" for k, v in found["parts"].items())
    lines = [f"trace {found['traceId']} (run {found['runId']}): {len(spans)} spans ({parts})"]
    seen: set[str] = set()

    def walk(parent: str | None, depth: int) -> None:
        for s in children.get(parent, []):
            if s["spanId"] in seen:  # the plugin may re-export a span after a lost flush
                continue
            seen.add(s["spanId"])
            took = s.get("durationMs")
            shown = f"{took / 1000:9.3f} s" if isinstance(took, int | float) else "        ? "
            part = str(s.get("part") or "").removeprefix(_PART_PREFIX)
            status = "" if s.get("status") in ("OK", "UNSET") else f"  [{s.get('status')}]"
            start = str(s.get("start") or "")[11:23]
            lines.append(f"{start} {shown}  {'  ' * depth}{s['name']}  ({part}){status}")
            walk(s["spanId"], depth + 1)

    walk(None, 0)
    return "\n".join(lines)
