"""`unknown` is said honestly wherever active content is (issue 56, item 6): the review page by
the document's facts and by its download, and `docflow show`, say "could not be fully
checked", never that the PDF holds nothing; `external` is said as what it does."""

from __future__ import annotations

import lxml.html
import pytest

from docflow.active_content import said, short
from docflow.cli.queries import page_lines
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.refusals import REJECT_REASONS
from docflow.review.web.evidence import PageFacts
from docflow.review.web.page_records import Routing, Shown
from docflow.review.web.pages import review_page


def page_for(kinds: list[str]) -> lxml.html.HtmlElement:
    link = LinkRecord.from_item(
        {
            "pk": "LINK#T",
            "summary": {"docType": "contract", "pages": 1, "activeContent": kinds},
            "stageIndex": 0,
            "stageName": "legal",
            "key": "in/contract.pdf",
            "reviewer": "legal@example.com",
        }
    )
    html = review_page(
        Shown(
            link=link,
            base="/review/T",
            pages=[PageFacts(1, "textlayer", 100.0, {})],
            order=[1],
            shown_from=0,
            texts={},
            routing=Routing((), 40.0),
            deadline=None,
            flagged=0,
            reasons=REJECT_REASONS,
        )
    )
    return lxml.html.fromstring(html)


def text_of(page: lxml.html.HtmlElement, element_id: str) -> str:
    (found,) = page.xpath(f'//*[@id="{element_id}"]')
    return " ".join(found.text_content().split())


@pytest.mark.parametrize(
    ("kinds", "facts", "download"),
    [
        (
            ["unknown"],
            "active-content: the PDF could not be fully checked for active content",
            "The original could not be fully checked for active content",
        ),
        (
            ["javascript", "unknown"],
            "active-content: the PDF holds javascript; it could not be fully checked, so it "
            "may hold more",
            "The original holds active content (javascript) and could not be fully checked",
        ),
        (
            ["external"],
            "active-content: the PDF holds external actions (a link, a form's submission, "
            "another file)",
            "The original holds active content (external)",
        ),
    ],
)
def test_the_review_page_says_what_was_found_and_what_could_not_be_checked(
    kinds: list[str], facts: str, download: str
) -> None:
    page = page_for(kinds)
    assert text_of(page, "active-content") == facts
    assert text_of(page, "active-download").startswith(download)


def test_show_and_the_sentences_never_say_none_for_unknown() -> None:
    assert page_lines({"activeContent": ["unknown"]}) == [  # type: ignore[typeddict-item]
        "active      active-content: could not be fully checked"
    ]
    assert short(["javascript", "xfa", "unknown"]) == (
        "javascript and xfa; could not be fully checked"
    )
    assert short(["launch"]) == "launch"
    assert said(["javascript"]) == "the PDF holds javascript"
    assert said([]) == ""
