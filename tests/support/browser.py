"""Debian's Chromium driven by Playwright, launched the way that works on these machines (no
sandbox, no GPU, no background downloads), and a check that a screenshot shows ink."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from tests.support import markers

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
    markers.require("browser", "Chromium")
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)


def press_access_key(page: Any, key: str) -> None:
    """Alt+key as Chromium on Linux receives it from a keyboard: a key-down carrying the
    key's unmodified text, which is what its access-key lookup reads. (Playwright's own
    `keyboard.press("Alt+a")` sends no unmodified text, so no access key ever fires.)"""
    alt = 1  # CDP's modifier bit for Alt
    event = {
        "modifiers": alt,
        "key": key,
        "code": f"Key{key.upper()}",
        "windowsVirtualKeyCode": ord(key.upper()),
        "nativeVirtualKeyCode": ord(key.upper()),
        "text": key,
        "unmodifiedText": key,
    }
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", **event})
        cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **event})
    finally:
        cdp.detach()


def approve(page: Any) -> None:
    """Click Approve and, where the page asks to confirm (a value changed, a check unresolved),
    confirm; return once the page says the document was approved."""
    page.click("button.approve")
    page.wait_for_selector("button.confirm-yes, h1:has-text('Document approved')")
    if page.locator("button.confirm-yes").count():
        page.click("button.confirm-yes")
        page.wait_for_selector("h1:has-text('Document approved')")
