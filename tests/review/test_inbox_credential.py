"""The inbox link stays out of review URLs and pages (#31.2): it rides in an HttpOnly, SameSite
Strict cookie set by the inbox page; a forwarded review link approves only its own stage; one
inbox link can be revoked without revoking the reviewer."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

from callback_api.exchange import INBOX_COOKIE_S
from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.keys import build_key_source
from docflow.review.access.signing import verify
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack
from tests.support.review_desk import call, open_desk, wait_until

LEGAL = "legal@example.com"
CONTRACT = """SERVICES AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Governing law: Delaware."""


def approve(path: str, **headers: str) -> dict:
    form = urlencode({"decision": "approve"})
    return call(
        "POST", path, form, **{"content-type": "application/x-www-form-urlencoded", **headers}
    )


def test_review_urls_and_pages_carry_no_inbox_credential(stack: Stack) -> None:
    s = load_settings()
    with open_desk(stack) as desk:
        docs = [stack.upload(f"in/{n}.pdf", pdfs.text_pdf(CONTRACT)) for n in ("one", "two")]
        for doc in docs:
            desk.start(doc)
        wait_until(lambda: sum(m.to == LEGAL for m in links_in(moto_sent_mail())) >= 2)
        token = InboxLinks(s.links_table).issue(LEGAL, build_key_source(s).ring(), 3600)

        opened = call("GET", f"/inbox/{token}", accept="application/json")
        assert opened["statusCode"] == 200
        (cookie,) = opened["cookies"]
        assert cookie.startswith(f"docflow_inbox={token}")
        assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Strict" in cookie
        items = json.loads(opened["body"])["items"]
        assert len(items) == 2
        for item in items:
            assert token not in item["open"] and "inbox" not in item["open"]
            # Opened from the inbox (the cookie goes along): the way back names no link.
            page = call("GET", item["open"], cookie=f"docflow_inbox={token}")["body"]
            assert token not in page
            assert 'href="/inbox"' in page
        assert call("GET", "/inbox", cookie=f"docflow_inbox={token}")["statusCode"] == 200

        # Forwarded: the first review link, without the reviewer's browser.
        forwarded = items[0]["open"]
        done = approve(forwarded)
        assert done["statusCode"] == 200 and "Document approved" in done["body"]
        assert token not in done["body"] and "Next: " not in done["body"]
        assert call("GET", "/inbox")["statusCode"] == 403  # no cookie, no inbox
        assert call("GET", forwarded)["statusCode"] == 409
        left = json.loads(call("GET", f"/inbox/{token}", accept="application/json")["body"])
        assert [i["open"] for i in left["items"]] == [items[1]["open"]]  # still waiting


def test_one_inbox_link_is_revoked_and_the_reviewer_is_not(stack: Stack) -> None:
    s = load_settings()
    ring = build_key_source(s).ring()
    with open_desk(stack) as desk:
        doc = stack.upload("in/three.pdf", pdfs.text_pdf(CONTRACT))
        desk.start(doc)
        wait_until(lambda: any(m.to == LEGAL for m in links_in(moto_sent_mail())))
        review = next(m.token for m in links_in(moto_sent_mail()) if m.to == LEGAL)
        links = InboxLinks(s.links_table)
        leaked = links.issue(LEGAL, ring, 3600)
        assert links.revoke(leaked, ring) == LEGAL
        assert links.revoke(review, ring) is None  # a review link is no inbox link
        assert call("GET", f"/inbox/{leaked}")["statusCode"] == 403
        fresh = links.issue(LEGAL, ring, 3600)  # the next digest's link is a new one
        assert fresh != leaked
        assert call("GET", f"/inbox/{fresh}")["statusCode"] == 200
        assert call("GET", f"/review/{review}")["statusCode"] == 200  # the reviewer is not


def test_an_inbox_link_lives_a_week_and_its_cookie_a_working_day(stack: Stack) -> None:
    # Shorter than the 30 days it had: a digest comes every period with a fresh link, and a
    # leaked one is worth less for less long. The cookie it sets lasts a working day.
    s = load_settings()
    week = 7 * 24 * 3600
    assert s.inbox_link_ttl_s == week and INBOX_COOKIE_S == 8 * 3600
    ring = build_key_source(s).ring()
    token = InboxLinks(s.links_table).issue(LEGAL, ring, s.inbox_link_ttl_s)
    claims = verify(token, ring)
    assert claims.purpose == "inbox" and claims.expires_at <= time.time() + week
