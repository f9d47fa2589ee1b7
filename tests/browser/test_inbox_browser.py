"""A reviewer's inbox in a real browser (Chromium through Playwright) on the real local stack,
on a phone and on a desktop: the inbox lists the reviewer's items and nobody else's, a claim
shows on a colleague's page, approve-and-next walks three documents (by taps on the phone, by
the keys on the desktop), one revoked inbox link answers 403 while the reviewer's others open,
and a revoked reviewer's links answer 403."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.rules.model import DEFAULT_RULES
from tests.kit.mailbox import wait_for_links
from tests.kit.pdfgen import make_pdf
from tests.support import screenshots
from tests.support.browser import chromium, press_access_key
from tests.support.live_stack import wait_for

LEGAL, COUNSEL, PRIVACY = "legal@example.com", "counsel@example.com", "privacy@example.com"
CONTRACT = """SERVICES AGREEMENT {n}
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Governing law: Delaware."""
MEMO = "MEMO\nApplicant SSN: 123-45-6789\nPlease file this with the others."
SHOTS = screenshots.folder()
SIZES = (("phone", 390, 844), ("desktop", 1280, 800))
COLLEAGUE: dict[str, str] = {}


def inbox_rules(folder: Path) -> Path:
    """The shipped rules with a second legal reviewer, and no triage: the memo (no type fits
    it) goes straight to privacy, whose links get revoked."""
    rules = folder / "inbox-rules.toml"
    text = DEFAULT_RULES.read_text().replace(
        'reviewers = ["legal@example.com"]', f'reviewers = ["{LEGAL}", "{COUNSEL}"]'
    )
    triage = text.index("[triage]\n")
    rules.write_text(text[:triage] + text[text.index("\n\n", triage) + 2 :])
    return rules


pytestmark = [
    pytest.mark.slow(seconds=80),
    pytest.mark.browser,
    pytest.mark.live_stack(rules=inbox_rules),
]


def contracts(live_stack: StackConfig, prefix: str, count: int) -> list[str]:
    """Upload contracts one after another (the inbox is oldest first); their file names.
    Each one's colleague link (counsel's) goes into COLLEAGUE by file name."""
    names = []
    for n in range(count):
        name = f"{prefix}-{n + 1}.pdf"
        doc = put_document(
            live_stack.names("DocumentBucket"), f"incoming/{name}", make_pdf([CONTRACT.format(n=n)])
        )
        wait_for(doc.document_id, {"pending-review"}, doc.run_id)
        links = wait_for_links(live_stack.state, 2, run_id=doc.run_id, stage_index=0)
        COLLEAGUE[name] = next(link.url for link in links if link.reviewer == COUNSEL)
        names.append(name)
    return names


def inbox_url(live_stack: StackConfig, reviewer: str) -> str:
    """As a person running the stack gets it: `docflow inbox ADDRESS --json`."""
    shape = json.loads(docflow(live_stack, "inbox", reviewer, "--json"))
    assert shape["reviewer"] == reviewer
    assert set(shape) == {"reviewer", "url", "expiresAt", "pending"}
    return str(shape["url"])


def docflow(live_stack: StackConfig, *args: str) -> str:
    command = [sys.executable, "-m", "docflow.cli", "--state", str(live_stack.state), *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def names_on(page: Any) -> list[str]:
    return page.locator("ol.inbox a.open").all_inner_texts()


def test_the_inbox_in_a_browser(live_stack: StackConfig, tmp_path: Path) -> None:
    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    memo = put_document(live_stack.names("DocumentBucket"), "incoming/memo.pdf", make_pdf([MEMO]))
    wait_for(memo.document_id, {"pending-review"}, memo.run_id)
    walks = {
        "phone": contracts(live_stack, "phone", 3),
        "desktop": contracts(live_stack, "desktop", 3),
    }
    legal = inbox_url(live_stack, LEGAL)

    with chromium() as browser:
        for size, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            # The reviewer's items, oldest first, and nobody else's (the memo is privacy's).
            page.goto(legal)
            listed = names_on(page)
            assert listed[:3] == walks[size]
            assert "memo.pdf" not in listed
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(shots / f"inbox-{size}.png"), full_page=True)

            # A colleague opens the first one: legal's inbox and legal's page say so.
            first = walks[size][0]
            colleague = browser.new_page(viewport={"width": width, "height": height})
            colleague.goto(COLLEAGUE[first])
            colleague.click("#look")  # "I'm reviewing this": a GET alone says nothing
            assert "You are looking at this since" in colleague.locator("#claim").inner_text()
            page.goto(legal)
            item = page.locator("ol.inbox li", has_text=first)
            assert f"{COUNSEL} is looking at this since" in item.inner_text()
            item.locator("a.open").click()
            assert f"{COUNSEL} is looking at this since" in page.locator("#claim").inner_text()
            page.screenshot(path=str(shots / f"inbox-claimed-{size}.png"), full_page=True)
            colleague.close()

            # Approve and next, three documents: taps on the phone, keys on the desktop.
            page.goto(legal)
            walked = []
            for _ in range(3):
                if size == "phone":
                    if not walked:
                        page.locator("ol.inbox a.open").first.click()
                    walked.append(page.locator("h1").inner_text().removeprefix("Review "))
                    page.click("button.approve")
                    page.wait_for_selector("h1:has-text('Document approved')")
                    if len(walked) < 3:
                        page.click("a.next")
                else:
                    if not walked:
                        # j and k move the selection (a link with the focus); Enter opens it.
                        press_access_key(page, "j")
                        page.wait_for_selector(f"li.selected:has-text('{walks[size][1]}')")
                        press_access_key(page, "k")
                        page.wait_for_selector(f"li.selected:has-text('{walks[size][0]}')")
                        page.keyboard.press("Enter")
                    page.wait_for_selector("h1:has-text('Review ')")
                    walked.append(page.locator("h1").inner_text().removeprefix("Review "))
                    press_access_key(page, "a")
                    page.wait_for_selector("button.confirm-yes:focus")
                    if len(walked) == 1:
                        page.screenshot(path=str(shots / "inbox-confirm-desktop.png"))
                    page.keyboard.press("Enter")
                    page.wait_for_selector("h1:has-text('Document approved')")
                    if len(walked) < 3:
                        page.keyboard.press("Enter")  # "Next" has the focus
            assert walked == walks[size], size
            # The phone's walk ends where the desktop's begins; the desktop's, with nothing.
            after = "Next: desktop-1.pdf" if size == "phone" else "Nothing else is waiting on you"
            assert after in page.locator("main").inner_text()
            page.screenshot(path=str(shots / f"inbox-done-{size}.png"), full_page=True)
            if size == "desktop":
                page.goto(legal)
                assert not names_on(page) and "Nothing is waiting on you" in page.content()
            page.close()

        # One inbox link revoked (a forwarded one): that link answers 403, the reviewer gets a
        # new one, and their review links still open.
        (memo_link,) = wait_for_links(live_stack.state, 1, run_id=memo.run_id, stage_index=0)
        forwarded = inbox_url(live_stack, PRIVACY)
        ended = json.loads(docflow(live_stack, "reviewers", "revoke-link", forwarded, "--json"))
        assert ended == {"reviewer": PRIVACY, "linkRevoked": True}
        page = browser.new_page()
        answer = page.goto(forwarded)
        assert answer is not None and answer.status == 403
        privacy = inbox_url(live_stack, PRIVACY)
        assert privacy != forwarded
        for url in (privacy, memo_link.url):
            answer = page.goto(url)
            assert answer is not None and answer.status == 200, url
        page.close()

        # Revoked: the inbox and the review links answer 403 with a page that says so.
        revoked = json.loads(docflow(live_stack, "reviewers", "revoke", PRIVACY, "--json"))
        assert revoked["revoked"] and revoked["reviewer"] == PRIVACY
        for size, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            for url in (privacy, memo_link.url):
                answer = page.goto(url)
                assert answer is not None and answer.status == 403
                assert "This link was revoked" in page.locator("h1").inner_text()
            page.screenshot(path=str(shots / f"inbox-revoked-{size}.png"), full_page=True)
            page.close()
