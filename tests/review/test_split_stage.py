"""The `split` stage: a packet with an unsure boundary waits for a person, whose split (checked
on the page, at the desk and in the orchestrator) decides which parts start."""

from __future__ import annotations

import base64
import io
import json
from urllib.parse import urlencode

import pytest
from PIL import Image

import callback_api.app as api
from docflow.review.access.refusals import ReviewRefused
from docflow.review.decision_form import DecisionForm
from docflow.review.stage.decision import Decision, DecisionError
from docflow.review.stage.split import parts_from_starts, split_problem
from docflow.runtime import runtime, use_runtime
from tests.support.aws import Stack
from tests.support.packets import INVOICE_B, REPORT, RecordingStarter, packet
from tests.support.review_desk import call, open_desk, wait_until

FORM = {"content-type": "application/x-www-form-urlencoded"}


def post(token: str, starts: list[int], decision: str = "approve") -> dict:
    body = urlencode([("decision", decision), *(("start", str(s)) for s in starts)])
    return call("POST", f"/review/{token}", body, **FORM)


def test_an_unsure_boundary_waits_and_the_reviewers_split_starts_the_parts(stack: Stack) -> None:
    doc = stack.upload("in/packets/post.pdf", packet(INVOICE_B, REPORT))
    recording = RecordingStarter()
    with open_desk(stack) as desk:
        use_runtime(runtime().with_(starter=recording))
        arn = desk.start(doc)
        token = desk.links(doc)[0]

        page = call("GET", f"/review/{token}")
        assert page["statusCode"] == 200
        html = page["body"]
        assert "Split post.pdf into documents" in html
        assert html.count('name="start"') == 3
        assert 'value="1" checked' in html and 'value="3" checked' in html
        assert 'value="2" checked' not in html  # proposed: pages 1-2 and 3
        assert "unsure" in html and "<script" not in html
        thumb = call("GET", f"/review/{token}/pages/2?size=thumb")
        assert thumb["statusCode"] == 200
        image = Image.open(io.BytesIO(_body(thumb)))
        assert image.width <= 300

        # Page 1 unticked: it would be in no document. Refused on the page; nothing decided.
        refused = post(token, [2])
        assert refused["statusCode"] == 400
        assert "Page 1 would be in no document" in refused["body"]
        assert 'value="2" checked' in refused["body"]  # the reviewer's ticks come back
        assert recording.started == {}

        # The boundary moved from page 3 to page 2: the invoice alone, the report whole.
        decided = post(token, [1, 2])
        assert decided["statusCode"] == 200, decided["body"]
        out = desk.result(arn)
        assert (out["status"], out["parts"]) == ("finalized", 2)
        wait_until(lambda: len(recording.started) == 2)
    pages = sorted((d.part.first, d.part.last) for d in recording.started.values() if d.part)
    assert pages == [(1, 1), (2, 3)]


def _body(answer: dict) -> bytes:
    raw = answer["body"]
    return base64.b64decode(raw) if answer.get("isBase64Encoded") else raw.encode("latin-1")


@pytest.mark.parametrize(
    ("parts", "problem"),
    [
        ([[1, 2], [3, 5]], ""),
        ([[2, 5]], "Page 1 would be in no document"),
        ([[1, 2], [4, 5]], "Page 3 would be in no document"),
        ([[1, 3], [3, 5]], "Page 3 would be in two documents"),
        ([[1, 2], [3, 4]], "Page 5 would be in no document"),
        ([[1, 6]], "The packet has 5 pages"),
        ([[3, 5], [1, 2]], "Pages 1 to 2 would be in no document"),
        ([], "Mark where at least one document starts"),
        ("1-5", "Mark where at least one document starts"),
        ([[1, "5"]], "Each document is a first and a last page"),
    ],
)
def test_a_split_holds_every_page_once_in_order(parts: object, problem: str) -> None:
    said = split_problem(parts, 5)
    assert said.startswith(problem) if problem else said == ""


def test_the_orchestrator_checks_the_split_again() -> None:
    good = {"approved": True, "reviewer": "m@example.com", "parts": [[1, 1], [2, 3]]}
    assert Decision.parse(json.dumps(good), None, 3).parts == ((1, 1), (2, 3))
    with pytest.raises(DecisionError) as leaves_out:
        Decision.parse({**good, "parts": [[1, 1]]}, None, 3)
    assert leaves_out.value.field == "parts" and not leaves_out.value.decision.approved
    with pytest.raises(DecisionError):
        Decision.parse(good, None, None)  # parts on a stage that is not a split
    rejected = Decision.parse({"approved": False, "rejectReason": "other"}, None, 3)
    assert rejected.parts == ()
    assert parts_from_starts([1, 4, 2], 5) == [[1, 1], [2, 3], [4, 5]]


def test_the_desk_refuses_a_split_that_leaves_a_page_out(stack: Stack) -> None:
    doc = stack.upload("in/packets/post.pdf", packet(INVOICE_B, REPORT))
    with open_desk(stack) as desk:
        use_runtime(runtime().with_(starter=RecordingStarter()))
        arn = desk.start(doc)
        token = desk.links(doc)[0]
        with pytest.raises(ReviewRefused) as refused:
            # Page 1 unticked: the split would leave it out of every document.
            api.views().desk.decide(token, DecisionForm(decision="approve", starts=("2",)))
        assert (refused.value.status, refused.value.code) == (400, "bad-split")
        # The link still decides: nothing was spent.
        assert post(token, [1, 3])["statusCode"] == 200
        assert desk.result(arn)["parts"] == 2
