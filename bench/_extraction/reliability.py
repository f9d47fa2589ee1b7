"""The reliability diagram of the field confidences, drawn with Pillow (already a dependency
of the generated set) rather than matplotlib: ten bins of confidence, each bin's accuracy as
a bar against the diagonal, one panel per series, the count of values in each bin under it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from _extraction.generated import VERA
from _extraction.scoring import ece, reliability

SIZE, MARGIN = 360, 50


def draw_reliability(series: Mapping[str, Sequence[tuple[float, bool]]], path: Path) -> None:
    panels = list(series.items())
    width = max(1, len(panels)) * (SIZE + 2 * MARGIN)
    image = Image.new("RGB", (width, SIZE + 3 * MARGIN), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(VERA, 12)
    for index, (title, pairs) in enumerate(panels):
        left, top = index * (SIZE + 2 * MARGIN) + MARGIN, MARGIN
        bottom, right = top + SIZE, left + SIZE
        draw.rectangle((left, top, right, bottom), outline="black")
        draw.line((left, bottom, right, top), fill=(150, 150, 150), width=1)
        for low, high, inside in reliability(pairs):
            if not inside:
                continue
            accuracy = sum(ok for _, ok in inside) / len(inside)
            mean = sum(c for c, _ in inside) / len(inside)
            x0, x1 = left + low * SIZE + 2, left + high * SIZE - 2
            draw.rectangle((x0, bottom - accuracy * SIZE, x1, bottom), fill=(70, 110, 200))
            y = bottom - mean * SIZE
            draw.line((x0, y, x1, y), fill=(220, 60, 40), width=2)
            draw.text((x0, bottom + 4), str(len(inside)), fill="black", font=font)
        for tick in range(0, 11, 2):
            x = left + tick / 10 * SIZE
            draw.text((x - 8, bottom + 18), f"{tick / 10:.1f}", fill="black", font=font)
            y = bottom - tick / 10 * SIZE
            draw.text((left - 30, y - 6), f"{tick / 10:.1f}", fill="black", font=font)
        label = f"{title}: ECE {ece(pairs)}, {len(pairs)} values"
        draw.text((left, top - 30), label, fill="black", font=font)
        draw.text(
            (left, bottom + 34),
            "confidence (bins; count under each) - bar: accuracy, red: mean confidence",
            fill="black",
            font=font,
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)
