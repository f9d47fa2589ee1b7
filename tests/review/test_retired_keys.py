"""A key id retired from the signing ring (#31.5): a waiting stage's slot and a reviewer's inbox
slot minted with it get a fresh link on the next issue, so reminders and digests still go out
(and their links verify)."""

from __future__ import annotations

from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.links import LinkStore
from docflow.review.access.signing import KeyRing, verify
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack

OLD = KeyRing.generate_json("k1")
NEW_ONLY = KeyRing.generate_json("k2")  # k1 removed from the ring


def test_a_retired_key_id_still_lets_reminders_go_out(stack: Stack) -> None:
    s = load_settings()
    links = LinkStore(s.links_table)
    doc = stack.upload("in/waiting.pdf", pdfs.text_pdf("SERVICES AGREEMENT"))
    stage = RoutedStage(Stage("legal", ("a@example.com",), 3600, 0), "type")
    request = ReviewRequest(doc, 0, stage, "cb-1", {"docType": "contract"})
    old_ring, new_ring = KeyRing.from_json(OLD), KeyRing.from_json(NEW_ONLY)

    first = links.issue(request, "a@example.com", old_ring, 3600)
    links.mark_sent(request, "a@example.com", {"request"})
    # The operator retired k1; the stage's reminder round issues the link again.
    reminder = ReviewRequest(doc, 0, stage, "cb-2", {"docType": "contract"}, round=1, reminder=1)
    again = links.issue(reminder, "a@example.com", new_ring, 3600)
    assert again.token != first.token
    assert verify(again.token, new_ring).reviewer == "a@example.com"
    assert again.sent == frozenset()  # the new link has not been mailed: the reminder goes out
    # Issued once more, the same fresh link (a re-run of the step mails nothing new).
    assert links.issue(reminder, "a@example.com", new_ring, 3600).token == again.token


def test_a_retired_key_id_still_lets_digests_go_out(stack: Stack) -> None:
    inbox = InboxLinks(load_settings().links_table)
    old_ring, new_ring = KeyRing.from_json(OLD), KeyRing.from_json(NEW_ONLY)
    first = inbox.issue("a@example.com", old_ring, 3600)
    again = inbox.issue("a@example.com", new_ring, 3600)
    assert again != first
    assert inbox.check(again, new_ring) == "a@example.com"
