"""Presence is taken by the page's first interaction, not its GET (#31.6): a mail scanner that
prefetches a review link, again and again, tells colleagues nothing."""

from __future__ import annotations

from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import Stack
from tests.support.review_desk import call, open_desk

DOCUMENT = pdfs.CONTRACT_WITH_CARD


def test_a_prefetch_shows_nobody_looking_and_the_button_does(stack: Stack) -> None:
    with open_desk(stack) as desk:
        doc = stack.upload("in/prefetched.pdf", pdfs.text_pdf(DOCUMENT))
        desk.start(doc)
        desk.links(doc, want=2)
        mailed = [m for m in links_in(moto_sent_mail()) if m.run_id == doc.run_id]
        first, second = mailed[0].token, mailed[1].token
        for _ in range(3):  # the scanner of the first reviewer's mailbox
            page = call("GET", f"/review/{first}")["body"]
            assert "You are looking at this" not in page
            assert 'action="/review/' in page and "I&#39;m reviewing this" in page
        other = call("GET", f"/review/{second}")["body"]
        assert "is looking at this since" not in other

        looked = call("POST", f"/review/{first}/presence", "")
        assert looked["statusCode"] == 200
        assert "You are looking at this since" in looked["body"]
        assert "is looking at this since" in call("GET", f"/review/{second}")["body"]
        assert call("GET", f"/review/{first}/presence")["statusCode"] == 405
