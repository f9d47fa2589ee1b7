"""Server-side SVG charts for the local dashboard: no script, no library, no CDN.

Hand-written because the need is small (a few lines over time, a few bars) and the page's
rule is "nothing executes and nothing is fetched": a charting library would bring
JavaScript or a dependency heavier than these eighty lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

COLOURS = ("#0972d3", "#037f0c", "#8d6605", "#d91515", "#7d2ea6", "#096f64", "#5f6b7a")
WIDTH, HEIGHT, PAD_LEFT, PAD_BOTTOM, PAD_TOP = 380, 150, 44, 18, 8
# How wide a character of the charts' 10 px sans-serif may draw, in viewBox units (a little
# over what the common sans-serif fonts draw): the y-axis is as wide as its label needs.
WIDE, UPPER, OTHER = 9.5, 7.5, 6.2
# The font the widths above assume, on the SVG itself, so a chart drawn anywhere keeps it.
FONT = 'font-family="system-ui, sans-serif" font-size="10"'


def label_width(text: str) -> float:
    """An upper bound on the drawn width of `text` at the charts' font (viewBox units)."""
    return sum(WIDE if c in "mwMW" else UPPER if c.isupper() else OTHER for c in text)


def _number(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    if value >= 100 or value == int(value):
        return f"{value:,.0f}"
    if value >= 1:
        return f"{value:.1f}"
    return f"{value:.4g}"


def line_chart(
    title: str,
    series: Mapping[str, Sequence[float]],
    labels: tuple[str, str],
    unit: str = "",
    gauge: bool = False,
) -> str:
    """One line per series over equal time buckets; `labels` are the first and last times.
    The legend shows each series' total, or for a gauge (a depth, an age) its latest reading."""
    top = max((max(v, default=0) for v in series.values()), default=0) or 1
    top_label = f"{_number(top)}{unit}"
    left = max(PAD_LEFT, round(label_width(top_label)) + 6)
    plot_w, plot_h = WIDTH - left - 6, HEIGHT - PAD_BOTTOM - PAD_TOP
    parts = [
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" {FONT} role="img" aria-label="{escape(title)}">',
        f'<line x1="{left}" y1="{PAD_TOP + plot_h}" x2="{WIDTH - 6}" '
        f'y2="{PAD_TOP + plot_h}" stroke="#aab7b8"/>',
        f'<text x="{left - 4}" y="{PAD_TOP + 8}" text-anchor="end">{escape(top_label)}</text>',
        f'<text x="{left - 4}" y="{PAD_TOP + plot_h}" text-anchor="end">0</text>',
        f'<text x="{left}" y="{HEIGHT - 4}">{escape(labels[0])}</text>',
        f'<text x="{WIDTH - 6}" y="{HEIGHT - 4}" text-anchor="end">{escape(labels[1])}</text>',
    ]
    for index, (name, values) in enumerate(series.items()):
        if not values:
            continue
        step = plot_w / max(len(values) - 1, 1)
        points = " ".join(
            f"{left + i * step:.1f},{PAD_TOP + plot_h - (v / top) * plot_h:.1f}"
            for i, v in enumerate(values)
        )
        colour = COLOURS[index % len(COLOURS)]
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.6" points="{points}">'
            f"<title>{escape(name)}</title></polyline>"
        )
    parts.append("</svg>")
    return _figure(title, "".join(parts), series, gauge)


def bar_chart(title: str, values: Mapping[str, float], unit: str = "") -> str:
    """Horizontal bars, largest first."""
    ordered = sorted(values.items(), key=lambda kv: -kv[1])
    top = max((v for _, v in ordered), default=0) or 1
    row_h = 20
    height = max(row_h * len(ordered), row_h) + 4
    parts = [f'<svg viewBox="0 0 {WIDTH} {height}" {FONT} role="img" aria-label="{escape(title)}">']
    if not ordered:
        parts.append(f'<text x="0" y="14">{escape("no data yet")}</text>')
    for index, (name, value) in enumerate(ordered):
        y = index * row_h + 2
        width = (WIDTH - 190) * value / top
        colour = COLOURS[index % len(COLOURS)]
        parts.append(
            f'<text x="0" y="{y + 13}">{escape(name[:24])}</text>'
            f'<rect x="130" y="{y + 3}" width="{max(width, 1):.1f}" height="12" fill="{colour}"/>'
            f'<text x="{134 + width:.1f}" y="{y + 13}">'
            f"{escape(_number(value))}{escape(unit)}</text>"
        )
    parts.append("</svg>")
    svg = "".join(parts)
    return f'<figure class="chart"><figcaption>{escape(title)}</figcaption>{svg}</figure>'


def _figure(title: str, svg: str, series: Mapping[str, Sequence[float]], gauge: bool) -> str:
    def shown(values: Sequence[float]) -> str:
        if gauge:
            return f"latest {_number(values[-1] if values else 0)}"
        return f"total {_number(sum(values))}"

    legend = "".join(
        f'<span><i style="background:{COLOURS[i % len(COLOURS)]}"></i>{escape(name)} '
        f"({escape(shown(values))})</span>"
        for i, (name, values) in enumerate(series.items())
    )
    return (
        f'<figure class="chart"><figcaption>{escape(title)}</figcaption>{svg}'
        f'<div class="legend">{legend or "no data yet"}</div></figure>'
    )
