"""No detected number leaves through a field (issue 43, item 5): a card number read as the PO
number is whole only in `fields.json`; the checkpoint, the read model (history and current
state), the domain events, `final.json`, the dashboard's document page and the review page
carry it masked, and the document waits at privacy."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

from docflow.ops.widgets import handle
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.outputs import domain_events, s3_json
from tests.support.review_desk import Desk, call, open_desk, wait_until

CARD = "4111111111111111"
SPACED = "4111 1111 1111 1111"
# A clean invoice but for its "PO number", which is a card number.
INVOICE = pdfs.INVOICE_WITH_FIELDS.replace("Invoice date:", f"PO number: {CARD}\nInvoice date:")


def whole(value: Any) -> bool:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return CARD in text or SPACED in text


def test_a_card_in_a_po_field_is_whole_only_in_fields_json(
    stack: Stack, shipped_rules: None
) -> None:
    s = load_settings()
    model = ReadModel(s.table_name)
    with open_desk(stack, Desk) as desk:
        doc = stack.upload("in/po-card.pdf", pdfs.text_pdf(INVOICE))
        arn = desk.start(doc)
        token = desk.links(doc)[0]
        # The document waits at privacy, its field masked and marked on every side.
        wait_until(lambda: bool(model.pending().items))
        (waiting,) = model.pending().items
        assert waiting["stageName"] == "privacy"
        shown = model.show(doc.document_id)
        po = shown["state"]["fields"]["po_number"]
        assert (po["value"], po["masked"]) == ("•••• 1111", "card_number")
        codes = [(c["field"], c["code"]) for c in shown["state"]["fieldChecks"]]
        assert ("po_number", "sensitive-value") in codes
        page = call("GET", f"/review/{token}")["body"]
        assert 'value="•••• 1111"' in page and not whole(page)
        dashboard = handle({"document": doc.document_id}, model, "arn:widget")
        text = re.sub(r"<[^>]+>", "", dashboard)  # the page wraps each word of a value
        assert "•••• 1111" in text and not whole(dashboard) and not whole(text)

        # A card typed back, or an edited mask, is refused by its field and decides nothing.
        for typed, said in ((CARD, "holds a card number"), ("•••• 1112", "type the whole value")):
            answer = call(
                "POST",
                f"/review/{token}",
                urlencode({"decision": "approve", "field.po_number": typed}),
                **{"content-type": "application/x-www-form-urlencoded"},
            )
            assert answer["statusCode"] == 400 and said in answer["body"], answer["body"]
            assert not whole(answer["body"])  # not even echoed back to who typed it
        # Approved as shown: the mask is no correction, and it finalizes masked.
        form = {"decision": "approve", "field.po_number": "•••• 1111"}
        answer = call(
            "POST",
            f"/review/{token}",
            urlencode(form),
            **{"content-type": "application/x-www-form-urlencoded"},
        )
        assert answer["statusCode"] == 200, answer["body"]
        result = desk.runner.wait_for_result(arn, timeout=60)

    assert json.loads(result.result or "{}")["status"] == "finalized"
    checkpoint = result.get_step("extract").result or ""
    step = json.dumps(json.loads(checkpoint), ensure_ascii=False)
    assert "•••• 1111" in step and not whole(step)
    shown = model.show(doc.document_id)
    assert not whole(shown["state"]) and not whole(shown["history"])
    approved = [h for h in shown["history"] if h["status"] == "approved"]
    assert "po_number" not in (approved[0]["payload"].get("corrections") or {})
    assert shown["state"]["fields"]["po_number"]["value"] == "•••• 1111"
    events = domain_events(stack)
    assert {e["detail"]["status"] for e in events} >= {"pending-review", "finalized"}
    (done,) = [e["detail"] for e in events if e["detail"]["status"] == "finalized"]
    assert done["fields"]["po_number"]["value"] == "•••• 1111"
    assert not whole(events)
    final = s3_json(shown["state"]["resultKey"])
    assert final["summary"]["fields"]["po_number"]["masked"] == "card_number"
    assert not whole(final)
    # The step's full answer keeps the value whole: the one place it is.
    detail = s3_json(final["artifacts"] + "/fields.json")
    assert detail["fields"]["po_number"]["value"] == CARD
