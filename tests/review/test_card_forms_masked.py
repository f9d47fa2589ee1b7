"""Card numbers printed with dots, slashes, no-break spaces, or in a line item followed by its
quantity (issue 56, item 5), are masked everywhere but `fields.json`: the line items' cells in
the checkpoint, the read model (history and current state), the domain events and
`final.json`; the summary's abstract; the review page; the page preview. Through the durable
testing runner on moto, with the shipped rules, from a PDF drawn with its table's columns."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from docflow.readers.tesseract import TesseractReader
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.pdfgen import Placed, columns_pdf
from tests.support.aws import Stack
from tests.support.outputs import domain_events, s3_json
from tests.support.review_desk import Desk, call, open_desk, post_decision, wait_until

# The cards as printed, and the digits each must never show more of than its last four.
PRINTED = {
    "4111.1111.1111.1111": "4111111111111111",  # dots
    "5555/5555/5555/4444": "5555555555554444",  # slashes
    "3782\u00a0822463\u00a010005": "378282246310005",  # no-break spaces
    "6011 1111 1111 1117": "6011111111111117",  # spaces, its quantity printed right after
}
ROWS = [(f"Card {printed}", "2", "10.00", "20.00") for printed in PRINTED]


def invoice() -> bytes:
    head: list[list[Placed]] = [
        [(0.08, "ACME SUPPLIES LTD")],
        [(0.08, "INVOICE")],
        [(0.08, "Invoice number: INV-56005")],
        [(0.08, "Invoice date: 2026-03-04")],
        [(0.08, "Bill to: Example Corp")],
        [],
        [(0.08, "Description"), (0.58, "Qty"), (0.68, "Unit price"), (0.9, "Amount", "r")],
    ]
    lines: list[list[Placed]] = [
        [(0.08, item), (0.58, qty), (0.68, price), (0.9, amount, "r")]
        for item, qty, price, amount in ROWS
    ]
    tail: list[list[Placed]] = [
        [],
        [(0.08, "Subtotal: 80.00 USD")],
        [(0.08, "Tax (10%): 8.00 USD")],
        [(0.08, "Total due: 88.00 USD")],
    ]
    return columns_pdf([head + lines + tail])


def leaked(value: Any) -> list[str]:
    """The cards any part of `value` shows more of than the last four digits."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    digits = re.sub(r"\D", "", text)
    return [card for card in PRINTED.values() if card[:-4] in digits]


def test_cards_in_any_form_and_before_a_quantity_are_masked_everywhere_but_fields_json(
    stack: Stack, shipped_rules: None
) -> None:
    model = ReadModel(load_settings().table_name)
    with open_desk(stack, Desk) as desk:
        doc = stack.upload("in/card-lines.pdf", invoice())
        arn = desk.start(doc)
        (token,) = desk.links(doc)
        wait_until(lambda: bool(model.pending().items))
        (waiting,) = model.pending().items
        assert waiting["stageName"] == "privacy"  # the page's cards were counted
        state = model.show(doc.document_id)["state"]
        lines = state["fields"]["lines"]
        assert lines["masked"] == "card_number"
        assert [r["description"] for r in lines["rows"]] == [
            "Card •••• 1111",
            "Card •••• 4444",
            "Card •••• 0005",
            "Card •••• 1117",
        ]
        assert state["summary"]["abstract"] and "•••• 1111" in state["summary"]["abstract"]
        assert leaked(state) == []

        page = call("GET", f"/review/{token}")["body"]
        assert "Card •••• 4444" in page and leaked(page) == []
        preview = call("GET", f"/review/{token}/pages/1")
        assert preview["statusCode"] == 200
        seen, _ = TesseractReader().ocr_png(base64.b64decode(preview["body"]))
        assert "ACME SUPPLIES" in seen and "Unit price" in seen  # the rest is readable
        assert leaked(seen) == [], seen
        for group in ("4111", "5555", "3782", "822463", "6011"):
            assert group not in seen, seen

        # Approved at every stage it meets, it finalizes with the cards masked.
        for stage in range(len(state["stages"])):
            (token,) = desk.links(doc, stage=stage)
            assert post_decision(token, "approve")["statusCode"] == 200
        result = desk.runner.wait_for_result(arn, timeout=60)

    assert json.loads(result.result or "{}")["status"] == "finalized"
    shown = model.show(doc.document_id)
    assert leaked(shown) == []
    assert leaked(json.loads(result.get_step("extract").result or "{}")) == []
    assert leaked(domain_events(stack)) == []
    final = s3_json(shown["state"]["resultKey"])
    assert final["summary"]["fields"]["lines"]["masked"] == "card_number"
    assert leaked(final) == []
    # The step's full answer keeps the values whole: the one place they are.
    detail = s3_json(final["artifacts"] + "/fields.json")
    assert sorted(leaked(detail)) == sorted(PRINTED.values())
