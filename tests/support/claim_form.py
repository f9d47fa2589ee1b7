"""A declared document type with a field of every input the review page has (a date, an enum,
a checkbox, an amount, an address, a table), routed to two review stages one after the other,
for the declared-fields tests (tests/review/test_declared_fields.py and its browser twin).

The rules engine reads none of these fields (its labels are the invoice's), so a claim comes to
its first stage with every input empty: the first reviewer adds what the page prints, the second
sees their values and the table's rows, and may change them.
"""

from __future__ import annotations

import contextlib
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import lxml.html
import pytest

from docflow.extract.declarations.model import TypeDecl, parse_declarations
from docflow.ids import DocumentRef
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.refusals import REJECT_REASONS
from docflow.review.web.evidence import PageFacts
from docflow.review.web.page_records import Answered, Routing, Shown
from docflow.review.web.pages import review_page
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import Desk, call, open_desk

CLAIMS, CHECK = "claims@example.com", "check@example.com"
FIELDS = """
[fields.types.claim-form.fields.claim_date]
kind = "date"
description = "Date the claim was filed."
[fields.types.claim-form.fields.cover]
kind = "enum"
values = ["Comprehensive", "Third party"]
description = "The policy's cover."
[fields.types.claim-form.fields.police_report]
kind = "checkbox"
description = "Ticked on the form when the police took a report."
[fields.types.claim-form.fields.amount_claimed]
kind = "amount"
description = "Total claimed, two decimal places with a dot."
[fields.types.claim-form.fields.holder_address]
kind = "address"
description = "The policy holder's postal address."
[fields.types.claim-form.fields.items]
kind = "table"
description = "Each damaged item and what it costs to repair."
columns = [
  { name = "item", kind = "text", required = true },
  { name = "cost", kind = "amount" },
]
"""
RULES = f"""
[[document_types]]
name = "claim-form"
keywords = ["claim form", "claim number", "policy holder", "date of loss"]
min_hits = 2
stages = ["claims", "claims-check"]

[stages.claims]
reviewers = ["{CLAIMS}"]
timeout_seconds = 120

[stages.claims-check]
reviewers = ["{CHECK}"]
timeout_seconds = 120

[fields]
stage = "fields"
min_confidence = 0.8
max_pages = 5

[stages.fields]
reviewers = ["accounts@example.com"]
timeout_seconds = 120
{FIELDS}"""
CLAIM = """MOTOR CLAIM FORM
Claim number: C-20931
Policy holder: Jane Doe, 4 Elm Street, Leeds
Date of loss: 2 March 2026
Windscreen 420.00
Mirror 35.00"""


def claim_decl() -> TypeDecl:
    return parse_declarations(tomllib.loads(FIELDS)["fields"]["types"], FIELDS)["claim-form"]


@contextlib.contextmanager
def claim_desk(stack: Stack, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    """The desk on the testing runner with the claim-form rules."""
    path = folder / "rules.toml"
    path.write_text(RULES)
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "120")
    load_settings.cache_clear()
    try:
        with open_desk(stack, Desk) as desk:
            yield desk
    finally:
        load_settings.cache_clear()


def upload_claim(desk: Desk) -> tuple[DocumentRef, str]:
    doc = desk.stack.upload("in/claim.pdf", pdfs.text_pdf(CLAIM))
    return doc, desk.start(doc)


def post_form(token: str, form: dict[str, str] | list[tuple[str, str]]) -> dict:
    return call(
        "POST",
        f"/review/{token}",
        urlencode(form),
        **{"content-type": "application/x-www-form-urlencoded"},
    )


# A claim as the rules engine read it (before any reviewer), and its review page rendered from
# a link record holding it: the page tests' and the card tests' own claim.
READ = {
    "claim_date": {"value": "2026-03-02", "confidence": 0.9, "page": 1, "box": None},
    "cover": {"value": "Third party", "confidence": 0.9, "page": 1, "box": None},
    "police_report": {"value": "true", "confidence": 0.9, "page": 1, "box": None},
    "amount_claimed": {"value": "455.00", "confidence": 0.9, "page": 1, "box": None},
    "items": {
        "value": "2 rows",
        "rows": [{"item": "Windscreen", "cost": "420.00"}, {"item": "Mirror", "cost": "35.00"}],
        "confidence": 0.9,
        "page": 1,
        "box": None,
    },
}


def link_of(fields: dict[str, Any]) -> LinkRecord:
    return LinkRecord.from_item(
        {
            "pk": "LINK#T",
            "summary": {"docType": "claim-form", "pages": 1, "fields": fields, "fieldChecks": []},
            "stageIndex": 0,
            "stageName": "claims",
            "key": "in/claim.pdf",
            "reviewer": CLAIMS,
        }
    )


def render(fields: dict[str, Any], **answered: Any) -> lxml.html.HtmlElement:
    """The claim's review page with these fields; `answered`: what a reviewer sent back
    (`tables`, `field_errors`, ...: `docflow.review.web.pages.Answered`)."""
    shown = Shown(
        link=link_of(fields),
        base="/review/T",
        pages=[PageFacts(1, "textlayer", 100.0, {})],
        order=[1],
        shown_from=0,
        texts={},
        routing=Routing((), 40.0),
        deadline=None,
        flagged=0,
        reasons=REJECT_REASONS,
        decl=claim_decl(),
    )
    html = review_page(shown, Answered(**answered))
    return lxml.html.fromstring(html)


def one(page: lxml.html.HtmlElement, xpath: str) -> Any:
    (found,) = page.xpath(xpath)
    return found
