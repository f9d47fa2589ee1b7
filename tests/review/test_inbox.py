"""A reviewer's inbox through the callback API's real handler, on real executions of the
testing runner: what it lists and for whom, the links it refuses, claims, approve-and-next,
and revocation."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow.ids import DocumentRef
from docflow.review.access.inbox_links import InboxLinks, inbox_claims
from docflow.review.access.keys import build_key_source
from docflow.review.access.revocation import Revocations
from docflow.review.access.signing import KeyRing, mint, new_nonce
from docflow.review.stage.inbox import InboxIndex
from docflow.review.web.inbox_views import encode_page
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import RULES_FAST, Stack
from tests.support.review_desk import RunnerCallbacks, call, open_desk, wait_until

LEGAL, COUNSEL, PRIVACY = "legal@example.com", "counsel@example.com", "privacy@example.com"
CONTRACT = """SERVICES AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Governing law: Delaware."""
SSN_NOTE = "MEMO\nApplicant SSN: 123-45-6789\nPlease file."


@dataclass
class Desk:
    stack: Stack
    runner: DurableFunctionTestRunner
    callbacks: RunnerCallbacks

    def start(self, doc: DocumentRef) -> str:
        return self.runner.run_async(input=self.stack.event(doc), execution_timeout=120)

    def links(self, doc: DocumentRef, want: int = 1) -> dict[str, str]:
        """The review links mailed for the document's first stage, by reviewer."""

        def mine() -> dict[str, str]:
            return {
                m.to: m.token
                for m in links_in(moto_sent_mail())
                if m.run_id == doc.run_id and m.stage_index == 0
            }

        wait_until(lambda: len(mine()) >= want)
        return mine()


@pytest.fixture
def desk(stack: Stack) -> Iterator[Desk]:
    with open_desk(stack, Desk) as desk:
        yield desk


def inbox_link(reviewer: str) -> str:
    s = load_settings()
    return InboxLinks(s.links_table).issue(reviewer, build_key_source(s).ring(), 3600)


def inbox(token: str, **query: str) -> dict:
    path = f"/inbox/{token}" + (f"?{urlencode(query)}" if query else "")
    return call("GET", path, **{"accept": "application/json"})


def listed(token: str) -> list[dict]:
    answer = inbox(token)
    assert answer["statusCode"] == 200, answer["body"]
    return json.loads(answer["body"])["items"]


def decide(path: str, headers: dict[str, str] | None = None, **form: str) -> dict:
    return call(
        "POST",
        path,
        urlencode(form),
        **{"content-type": "application/x-www-form-urlencoded", **(headers or {})},
    )


def both_open(*tokens: str) -> list[dict]:
    """The review pages of these links, both reviewers saying "I'm reviewing this" at the same
    moment (a GET marks nobody as looking)."""
    answers: list[dict] = []
    start = threading.Barrier(len(tokens))

    def open_one(token: str) -> None:
        start.wait()
        answers.append(call("POST", f"/review/{token}/presence", ""))

    threads = [threading.Thread(target=open_one, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def contract(desk: Desk, name: str) -> DocumentRef:
    doc = desk.stack.upload(f"in/{name}.pdf", pdfs.text_pdf(CONTRACT))
    desk.start(doc)
    return doc


def test_the_inbox_lists_the_reviewers_items_and_nobody_elses(desk: Desk) -> None:
    for name in ("alpha", "beta"):  # one after the other: the inbox is oldest first
        desk.links(contract(desk, name), want=2)
    memo = desk.stack.upload("in/memo.pdf", pdfs.text_pdf(SSN_NOTE))
    desk.start(memo)
    desk.links(memo)

    mine = listed(inbox_link(LEGAL))
    assert [i["name"] for i in mine] == ["alpha.pdf", "beta.pdf"]  # oldest first
    assert {i["stage"] for i in mine} == {"legal"} and mine[0]["docType"] == "contract"
    assert mine[0]["why"] and mine[0]["since"] and mine[0]["deadline"]
    # Privacy's inbox has the memo and nothing of legal's.
    assert [i["name"] for i in listed(inbox_link(PRIVACY))] == ["memo.pdf"]
    # Filters and paging.
    assert listed(inbox_link(LEGAL)) == mine
    assert inbox(inbox_link(LEGAL), stage="privacy")["body"].count('"name"') == 0
    page = call("GET", f"/inbox/{inbox_link(LEGAL)}")
    assert page["statusCode"] == 200
    assert "alpha.pdf" in page["body"] and "memo.pdf" not in page["body"]
    assert 'accesskey="j"' in page["body"] and "autofocus" in page["body"]
    # The filters offer the rules file's stages and types; the one in use is selected.
    filtered = call("GET", f"/inbox/{inbox_link(LEGAL)}?stage=legal")["body"]
    assert '<select id="stage" name="stage">' in filtered and "<option>privacy</option>" in filtered
    assert "<option selected>legal</option>" in filtered and "<option>contract</option>" in filtered
    assert "script" not in page["headers"]["Content-Security-Policy"]

    # An item opens this reviewer's own review page, and the way back to the inbox.
    opened = call("GET", mine[0]["open"], cookie=f"docflow_inbox={inbox_link(LEGAL)}")
    assert opened["statusCode"] == 200 and "Review alpha.pdf" in opened["body"]
    assert f"<dt>You</dt><dd>{LEGAL}</dd>" in opened["body"]
    assert "Back to your inbox" in opened["body"]


def test_inbox_links_that_list_nothing_answer_403(desk: Desk) -> None:
    doc = contract(desk, "gamma")
    review = desk.links(doc, want=2)[LEGAL]
    token = inbox_link(LEGAL)
    s = load_settings()
    ring = build_key_source(s).ring()
    expired = mint(inbox_claims(LEGAL, int(time.time()) - 5, new_nonce()), ring)
    foreign_ring = KeyRing(current="k1", keys={"k1": b"x" * 40})
    forged = mint(inbox_claims(LEGAL, int(time.time()) + 600, new_nonce()), foreign_ring)
    # Signed but never handed out (no stored hash): a minted token that names another reviewer.
    unknown = mint(inbox_claims(COUNSEL, int(time.time()) + 600, new_nonce()), ring)
    tampered = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    for bad in (tampered, expired, forged, unknown, review):
        answer = inbox(bad)
        assert answer["statusCode"] == 403, (bad, answer["body"])
        assert '"items"' not in answer["body"]
    # An inbox link is not a review link either.
    assert call("GET", f"/review/{token}")["statusCode"] == 403
    assert decide(f"/review/{token}", decision="approve")["statusCode"] == 403
    # A page cursor of another reviewer's inbox is refused, not followed.
    (other,) = InboxIndex(s.links_table).page(COUNSEL).items
    cursor = {k: other[k] for k in ("pk", "sk")}
    assert inbox(token, page=encode_page(cursor))["statusCode"] == 400
    assert inbox(token, page="not-a-cursor")["statusCode"] == 400
    for method in ("POST", "PUT", "DELETE"):
        assert call(method, f"/inbox/{token}")["statusCode"] == 405


def test_a_claim_shows_to_the_other_reviewer_and_never_blocks_a_decision(desk: Desk) -> None:
    doc = contract(desk, "delta")
    links = desk.links(doc, want=2)
    # Both open the document at once: one claim between them.
    answers = both_open(links[LEGAL], links[COUNSEL])
    assert [a["statusCode"] for a in answers] == [200, 200]
    claimed = [a for a in answers if "You are looking at this since" in a["body"]]
    watching = [a for a in answers if "is looking at this since" in a["body"] and a not in claimed]
    assert len(claimed) == 1 and len(watching) == 1
    holder = LEGAL if f"<dt>You</dt><dd>{LEGAL}</dd>" in claimed[0]["body"] else COUNSEL
    other = COUNSEL if holder == LEGAL else LEGAL
    assert f"{holder} is looking at this since" in watching[0]["body"]
    # The inbox shows who is on it.
    (item,) = listed(inbox_link(other))
    assert item["claim"].startswith(f"{holder} is looking at this since")

    # The other reviewer decides anyway; the holder's later click finds the stage decided.
    assert decide(f"/review/{links[other]}", decision="approve")["statusCode"] == 200
    late = decide(
        f"/review/{links[holder]}", decision="reject", reason="other", comment="a duplicate"
    )
    assert late["statusCode"] == 409 and "already approved by" in late["body"]
    assert len(desk.callbacks.sent) == 1
    assert listed(inbox_link(holder)) == [] and listed(inbox_link(other)) == []


def test_release_gives_the_claim_back(desk: Desk) -> None:
    doc = contract(desk, "epsilon")
    links = desk.links(doc, want=2)
    assert "You are looking at this" in decide(f"/review/{links[LEGAL]}/presence")["body"]
    released = decide(f"/review/{links[LEGAL]}/release")
    assert released["statusCode"] == 200 and "You released epsilon.pdf" in released["body"]
    assert "You are looking at this" in decide(f"/review/{links[COUNSEL]}/presence")["body"]
    assert call("GET", f"/review/{links[LEGAL]}/release")["statusCode"] == 405


def test_approve_and_next_walks_the_inbox(desk: Desk) -> None:
    docs = []
    for name in ("one", "two", "three"):  # in this order into the inbox
        docs.append(contract(desk, name))
        desk.links(docs[-1], want=2)
    token = inbox_link(LEGAL)
    url = listed(token)[0]["open"]
    walked = []
    cookie = {"cookie": f"docflow_inbox={token}"}  # set by the inbox page; never in a URL
    for _ in docs:
        page = call("GET", url, **cookie)
        assert page["statusCode"] == 200
        walked.append(page["body"].split("<h1>Review ", 1)[1].split("<", 1)[0])
        path, _, query = url.partition("?")
        assert query == "" and token not in page["body"]
        if not walked[:-1]:  # a refused rejection keeps the way back to the inbox
            refused = decide(path, cookie, decision="reject")
            assert refused["statusCode"] == 400 and "Back to your inbox" in refused["body"]
        done = decide(path, cookie, decision="approve")
        assert done["statusCode"] == 200 and "Document approved" in done["body"]
        if "Next: " in done["body"]:
            url = done["body"].split('class="next" href="', 1)[1].split('"', 1)[0]
            url = url.replace("&amp;", "&")
    assert walked == ["one.pdf", "two.pdf", "three.pdf"]
    assert "Nothing else is waiting on you" in done["body"]
    assert listed(token) == []


def test_a_revoked_reviewers_links_answer_403(desk: Desk) -> None:
    doc = contract(desk, "zeta")
    links = desk.links(doc, want=2)
    token = inbox_link(LEGAL)
    assert inbox(token)["statusCode"] == 200
    Revocations(load_settings().links_table).revoke(LEGAL)
    for answer in (
        call("GET", f"/inbox/{token}"),
        call("GET", f"/review/{links[LEGAL]}"),
        decide(f"/review/{links[LEGAL]}", decision="approve"),
    ):
        assert answer["statusCode"] == 403
        assert "This link was revoked" in answer["body"]
    # The stage keeps its other reviewer, whose vote decides it.
    assert decide(f"/review/{links[COUNSEL]}", decision="approve")["statusCode"] == 200


def test_a_quorum_vote_leaves_only_the_voters_inbox(stack: Stack, tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        RULES_FAST.read_text().replace(
            '[stages.legal]\nreviewers = ["legal@example.com", "counsel@example.com"]',
            '[stages.legal]\nreviewers = ["legal@example.com", "counsel@example.com"]\nquorum = 2',
        )
    )
    before = os.environ.get("DOCFLOW_RULES_PATH")
    os.environ["DOCFLOW_RULES_PATH"] = str(rules)
    load_settings.cache_clear()
    try:
        with open_desk(stack, Desk) as desk:
            doc = contract(desk, "eta")
            links = desk.links(doc, want=2)
            # Both open it at once: one claim, and both still vote.
            opened = both_open(links[LEGAL], links[COUNSEL])
            assert sum("You are looking at this since" in a["body"] for a in opened) == 1
            first = decide(f"/review/{links[LEGAL]}", decision="approve")
            assert first["statusCode"] == 200 and "waiting for 1 more" in first["body"]
            assert listed(inbox_link(LEGAL)) == []
            assert [i["name"] for i in listed(inbox_link(COUNSEL))] == ["eta.pdf"]
            assert decide(f"/review/{links[COUNSEL]}", decision="approve")["statusCode"] == 200
            assert len(desk.callbacks.sent) == 1 and listed(inbox_link(COUNSEL)) == []
    finally:
        # As it was: a value left behind would reach a later test's local stack.
        if before is None:
            os.environ.pop("DOCFLOW_RULES_PATH", None)
        else:
            os.environ["DOCFLOW_RULES_PATH"] = before
        load_settings.cache_clear()
