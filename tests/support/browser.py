"""Debian's Chromium driven by Playwright, launched the way that works on these machines (no
sandbox, no GPU, no background downloads), and a check that a screenshot shows ink."""

from __future__ import annotations

import atexit
import contextlib
import io
from collections.abc import Iterator
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


# This process's Playwright driver and Chromium, started by the first test that asks: a driver
# and a browser cost about 1.7 CPU-s to start, and the browser tests asked 22 times a run.
_shared: dict[str, Any] = {}


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """The process's headless Chromium. What a test opens in it (each `new_page` is a context of
    its own: cookies, storage, viewport) is closed when the block ends, so tests share the
    browser's process and nothing they could see."""
    markers.require("browser", "Chromium")
    browser = _shared.get("browser")
    if browser is None or not browser.is_connected():
        from playwright.sync_api import sync_playwright

        if "playwright" not in _shared:
            _shared["playwright"] = sync_playwright().start()
            atexit.register(_stop)
        browser = _shared["browser"] = launch(_shared["playwright"])
    before = set(browser.contexts)
    try:
        yield browser
    finally:
        for context in browser.contexts:
            if context not in before:
                context.close()


def _stop() -> None:
    with contextlib.suppress(Exception):
        _shared["browser"].close()
    with contextlib.suppress(Exception):
        _shared["playwright"].stop()


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
