"""The original's download (#31.8): recorded in the document's history (who, which stage,
which object; no token) and not kept by a browser or proxy."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import requests

from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import call, open_desk


def test_a_download_is_recorded_and_not_cacheable(stack: Stack) -> None:
    with open_desk(stack) as desk:
        doc = stack.upload("in/contract.pdf", pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD))
        desk.start(doc)
        token = desk.links(doc)[0]
        answer = call("GET", f"/review/{token}/original")
        assert answer["statusCode"] == 302
        assert answer["headers"]["Cache-Control"] == "no-store"
        url = answer["headers"]["Location"]
        assert parse_qs(urlparse(url).query)["response-cache-control"] == ["no-store"]
        got = requests.get(url, timeout=30)  # the presigned answer itself (moto answers)
        assert got.headers["Cache-Control"] == "no-store"
        assert got.content.startswith(b"%PDF")
        shown = ReadModel(load_settings().table_name).show(doc.document_id)
    downloads = [h for h in shown["history"] if h["status"] == "downloaded"]
    assert len(downloads) == 1
    entry = downloads[0]
    assert entry["payload"]["reviewer"].endswith("@example.com")
    assert entry["payload"]["key"] == "in/contract.pdf"
    assert entry["payload"]["stageName"]
    assert token not in json.dumps(shown, default=str)
    # A note moves nothing (the review's own report may still be on its way).
    assert shown["state"]["status"] in ("classified", "pending-review")
