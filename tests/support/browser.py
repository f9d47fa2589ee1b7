"""Debian's Chromium driven by Playwright, launched the way that works on these machines (no
sandbox, no GPU, no background downloads), and a check that a screenshot shows ink."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

CHROMIUM = "/usr/bin/chromium"


ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def not_blank(png: bytes) -> bool:
    image = Image.open(io.BytesIO(png)).convert("L")
    low, high = image.getextrema()
    return high - low > 100  # ink on paper, not one flat colour



def launch(playwright: Any) -> Any:
    """A headless Chromium from the system's package (`playwright install` cannot download)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
