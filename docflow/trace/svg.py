"""A trace (report.build's dict) drawn as SVG on the server: one row an operation, its name
above its bar so the drawing stays legible when a phone shrinks it to 390 px; critical path
in a darker colour, failures red, open operations hatched to the right edge (now)."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any

from docflow.trace.report import human
from docflow.trace.text import flat, span
from docflow.trace.timeline import when

WIDTH = 560
ROW = 36
INDENT = 10
COLOURS = {
    "critical": "#0972d3",
    "plain": "#9ba7b6",
    "failed": "#d91515",
    "retrying": "#e07700",
    "running": "#037f0c",
}


def _colour(op: dict[str, Any]) -> str:
    if op["status"] in ("failed", "timed-out", "stopped"):
        return COLOURS["failed"]
    if op["status"] == "retrying":
        return COLOURS["retrying"]
    if op["end"] is None:
        return COLOURS["running"]
    return COLOURS["critical" if op["critical"] else "plain"]


def render(trace: dict[str, Any], now: datetime | None = None, max_rows: int = 400) -> str:
    now = now or datetime.now(UTC)
    start, total = span(trace, now)
    rows = list(flat(trace["operations"]))
    hidden = max(len(rows) - max_rows, 0)
    rows = rows[:max_rows]
    height = ROW * len(rows) + 28 + (16 if hidden else 0)
    out = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="timeline of {len(rows)} operations over {escape(human(total))}">',
        # Hung from the top: a phone's larger type (the page's CSS) would clip a baseline.
        f'<text x="0" y="1" dominant-baseline="text-before-edge">0</text>'
        f'<text x="{WIDTH}" y="1" text-anchor="end" dominant-baseline="text-before-edge">'
        f"{escape(human(total))}</text>",
    ]
    for n, op in enumerate(rows):
        y = 28 + n * ROW
        x0 = op["depth"] * INDENT
        span_w = WIDTH - x0
        begin = when(op["start"])
        end = when(op["end"]) or now
        tries = len(op.get("attempts") or [])
        # Short enough for a phone: the kind unless a step, the status unless it succeeded.
        label = f"{op['name']} · {human(op['durationSeconds'])}"
        if op["kind"] != "step":
            label += f" · {op['kind']}"
        if op["status"] != "succeeded":
            label += f" · {op['status']}"
        if tries > 1:
            label += f" · {tries} attempts"
        weight = ' font-weight="600"' if op["critical"] else ""
        out.append(f'<text x="{x0}" y="{y + 14}"{weight}>{escape(label)}</text>')
        if begin is None:
            continue
        a = x0 + (begin - start).total_seconds() / total * span_w
        b = x0 + (end - start).total_seconds() / total * span_w
        w = max(b - a, 2.0)
        title = f"{op['name']}: {op['start']} to {op['end'] or 'now'}"
        out.append(
            f'<rect x="{a:.1f}" y="{y + 19}" width="{w:.1f}" height="9" rx="2" '
            f'fill="{_colour(op)}"><title>{escape(title)}</title></rect>'
        )
        for attempt in op.get("attempts") or []:
            if attempt.get("error") and attempt.get("end"):
                at = when(attempt["end"])
                if at is not None:
                    ax = x0 + (at - start).total_seconds() / total * span_w
                    out.append(
                        f'<line x1="{ax:.1f}" x2="{ax:.1f}" y1="{y + 17}" y2="{y + 30}" '
                        f'stroke="{COLOURS["failed"]}" stroke-width="2"/>'
                    )
    if hidden:
        out.append(
            f'<text x="0" y="{height - 4}">{hidden} more operations: docflow trace --json</text>'
        )
    out.append("</svg>")
    return "".join(out)
