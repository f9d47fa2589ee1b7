"""A trace (report.build's dict) drawn as SVG on the server: one row an operation, its name
above its bar so the drawing stays legible when a phone shrinks it to 390 px; critical path
in a darker colour, failures red, open operations hatched to the right edge (now).

A label is sized for the phone's type (19 px in a 560-unit drawing, the page's CSS): one that
would run past the drawing's edge wraps onto a second line (a word is never cut), and the
bar sits below the label's last line with a gap, so the two never touch."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from html import escape

from docflow.trace.report import human
from docflow.trace.shapes import OperationJson, Trace
from docflow.trace.text import flat, span
from docflow.trace.timeline import when

WIDTH = 560
TOP = 28  # below the scale's labels
LINE = 23  # a label line at the phone's 19 px type, descenders included
GAP = 4  # between a label's last line and its bar
BAR = 9
PAD = 7  # below a bar, before the next row's label
CHAR = 11  # a character's width at the phone's type, generously (wider: wrapped)
INDENT = 10
COLOURS = {
    "critical": "#0972d3",
    "plain": "#9ba7b6",
    "failed": "#d91515",
    "retrying": "#e07700",
    "running": "#037f0c",
}


def _colour(op: OperationJson) -> str:
    if op["status"] in ("failed", "timed-out", "stopped"):
        return COLOURS["failed"]
    if op["status"] == "retrying":
        return COLOURS["retrying"]
    if op["end"] is None:
        return COLOURS["running"]
    return COLOURS["critical" if op["critical"] else "plain"]


def label_lines(op: OperationJson, width: float) -> list[str]:
    """The operation's label, wrapped between words to fit `width` units at the phone's type.
    Short enough for a phone: the kind unless a step, the status unless it succeeded."""
    parts = [op["name"], human(op["durationSeconds"])]
    if op["kind"] != "step":
        parts.append(op["kind"])
    if op["status"] != "succeeded":
        parts.append(op["status"])
    tries = len(op.get("attempts") or [])
    if tries > 1:
        parts.append(f"{tries} attempts")
    label = " · ".join(parts)
    fits = max(int(width // CHAR), 12)
    return textwrap.wrap(label, fits, break_long_words=False, break_on_hyphens=False) or [label]


def render(trace: Trace, now: datetime | None = None, max_rows: int = 400) -> str:
    now = now or datetime.now(UTC)
    start, total = span(trace, now)
    rows = list(flat(trace["operations"]))
    hidden = max(len(rows) - max_rows, 0)
    rows = rows[:max_rows]
    labels = [label_lines(op, WIDTH - op["depth"] * INDENT) for op in rows]
    tops = [TOP]
    for lines in labels:
        tops.append(tops[-1] + LINE * len(lines) + GAP + BAR + PAD)
    height = tops[-1] + (LINE if hidden else 0)
    out = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="timeline of {len(rows)} operations over {escape(human(total))}">',
        # Hung from the top: a phone's larger type (the page's CSS) would clip a baseline.
        f'<text x="0" y="1" dominant-baseline="text-before-edge">0</text>'
        f'<text x="{WIDTH}" y="1" text-anchor="end" dominant-baseline="text-before-edge">'
        f"{escape(human(total))}</text>",
    ]
    for n, op in enumerate(rows):
        y, lines = tops[n], labels[n]
        bar_y = y + LINE * len(lines) + GAP
        x0 = op["depth"] * INDENT
        span_w = WIDTH - x0
        begin = when(op["start"])
        end = when(op["end"]) or now
        weight = ' font-weight="600"' if op["critical"] else ""
        for i, line in enumerate(lines):
            # Hung from the line's top, as the scale's labels are: the bar is below its bottom.
            out.append(
                f'<text class="label" x="{x0}" y="{y + i * LINE}" '
                f'dominant-baseline="text-before-edge"{weight}>{escape(line)}</text>'
            )
        if begin is None:
            continue
        a = x0 + (begin - start).total_seconds() / total * span_w
        b = x0 + (end - start).total_seconds() / total * span_w
        w = max(b - a, 2.0)
        title = f"{op['name']}: {op['start']} to {op['end'] or 'now'}"
        out.append(
            f'<rect x="{a:.1f}" y="{bar_y}" width="{w:.1f}" height="{BAR}" rx="2" '
            f'fill="{_colour(op)}"><title>{escape(title)}</title></rect>'
        )
        for attempt in op.get("attempts") or []:
            if attempt.get("error") and attempt.get("end"):
                at = when(attempt["end"])
                if at is not None:
                    ax = x0 + (at - start).total_seconds() / total * span_w
                    out.append(
                        f'<line x1="{ax:.1f}" x2="{ax:.1f}" '
                        f'y1="{bar_y - 2}" y2="{bar_y + BAR + 2}" '
                        f'stroke="{COLOURS["failed"]}" stroke-width="2"/>'
                    )
    if hidden:
        out.append(
            f'<text x="0" y="{tops[-1]}" dominant-baseline="text-before-edge">'
            f"{hidden} more operations: docflow trace --json</text>"
        )
    out.append("</svg>")
    return "".join(out)
