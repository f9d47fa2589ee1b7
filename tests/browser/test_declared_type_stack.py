"""Issue 48 end to end on the real local stack, the reviewer in a real browser (Chromium through
Playwright): a document type added by the rules file alone, no code. A warranty claim is
classified by its keywords, its declared fields (an id, a date, an enum, a checkbox, an amount
and a parts table) are read by their labels, and its parts, which do not add up to the amount
claimed, send it to `fields`. The page shows an input per kind; the reviewer adds the missing
part as a row, picks the product line and submits; the claim finalizes with its fields and
its corrected table in `final.json`."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docflow.local.config import StackConfig
from docflow.local.tools.uploads import put_document
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from docflow.storage import DocumentStore
from tests.kit.mailbox import wait_for_links
from tests.support.browser import approve, chromium
from tests.support.live_stack import wait_for

WARRANTY_TYPE = """
[[document_types]]
name = "warranty-claim"
keywords = ["warranty claim", "claim no", "date of purchase", "product line", "repair requested"]
patterns = ['\\bWC-\\d{4,}\\b']
min_hits = 2
weight = 4
stages = []
"""

WARRANTY_FIELDS = """
[fields.types.warranty-claim.fields.claim_number]
kind = "id"
description = "The claim's number, as printed."
labels = { en = ["claim no"] }
pattern = 'WC-\\d{4,}'
required = true

[fields.types.warranty-claim.fields.purchase_date]
kind = "date"
description = "The day the product was bought."
labels = { en = ["date of purchase"] }
required = true

[fields.types.warranty-claim.fields.product_line]
kind = "enum"
description = "Which product line the claim is for."
labels = { en = ["product line"] }
values = ["appliances", "electronics", "furniture"]

[fields.types.warranty-claim.fields.repair_requested]
kind = "checkbox"
description = "Whether the customer asks for a repair rather than a refund."
labels = { en = ["repair requested"] }

[fields.types.warranty-claim.fields.amount_claimed]
kind = "amount"
description = "The total amount claimed."
labels = { en = ["amount claimed"] }
required = true

[fields.types.warranty-claim.fields.parts]
kind = "table"
description = "The parts claimed, one per row."
columns = [
  { name = "part", kind = "text", labels = { en = ["part"] }, required = true },
  { name = "quantity", kind = "number", labels = { en = ["qty"] } },
  { name = "cost", kind = "amount", labels = { en = ["cost"] } },
]
checks = [{ sum = "cost", equals = "amount_claimed", tolerance = 0.01 }]
"""


def warranty_rules(folder: Path) -> Path:
    """The shipped rules with a warranty-claim type and its fields: TOML only."""
    text = DEFAULT_RULES.read_text(encoding="utf-8")
    types_end = text.index("\n[", text.rindex("[[document_types]]"))
    fields_at = text.index("[stages.fields]")
    rules = folder / "warranty-rules.toml"
    rules.write_text(
        text[:types_end]
        + "\n"
        + WARRANTY_TYPE
        + text[types_end:fields_at]
        + WARRANTY_FIELDS.lstrip()
        + "\n"
        + text[fields_at:],
        encoding="utf-8",
    )
    return rules


pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.live_stack(rules=warranty_rules),
]

# 150.00 in all: the labour (30.00) the claim adds up to is not listed.
PARTS = [("Compressor", "1", "120.00"), ("Door seal", "2", "30.00")]


def warranty_claim_pdf() -> bytes:
    """A one-page claim with a text layer: labelled values, then a parts table in columns."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "Northwind Home Care - Warranty Claim")
    c.setFont("Helvetica", 11)
    lines = [
        "Claim No: WC-20417",
        "Customer: Dana Whitfield, 12 Orchard Lane, Leeds",
        "Date of purchase: 14 March 2026",
        "Product line: Appliances",
        "Repair requested: [x]",
        "Amount claimed: 180.00",
    ]
    for i, line in enumerate(lines):
        c.drawString(60, 740 - 18 * i, line)
    top = 610
    c.setFont("Helvetica-Bold", 11)
    for x, head in ((60, "Part"), (300, "Qty"), (420, "Cost")):
        c.drawString(x, top, head)
    c.setFont("Helvetica", 11)
    for row, (part, qty, cost) in enumerate(PARTS, start=1):
        y = top - 20 * row
        c.drawString(60, y, part)
        c.drawString(300, y, qty)
        c.drawString(420, y, cost)
    c.drawString(60, top - 20 * (len(PARTS) + 2), "Signed by the customer on 2 April 2026.")
    c.showPage()
    c.save()
    return out.getvalue()


def test_a_type_from_the_rules_file_alone_is_read_reviewed_in_the_browser_and_finalized(
    live_stack: StackConfig, tmp_path: Path
) -> None:
    bucket = live_stack.names("DocumentBucket")
    doc = put_document(bucket, "incoming/warranty-claim.pdf", warranty_claim_pdf())
    waiting = wait_for(doc.document_id, {"pending-review"}, doc.run_id)
    assert waiting["docType"] == "warranty-claim"
    assert waiting["stageName"] == "fields"
    fields = waiting["fields"]
    assert fields["claim_number"]["value"] == "WC-20417"
    assert fields["purchase_date"]["value"] == "2026-03-14"
    assert fields["amount_claimed"]["value"] == "180.00"
    assert [r["part"] for r in fields["parts"]["rows"]] == ["Compressor", "Door seal"]
    codes = {(c["field"], c["code"]) for c in waiting["fieldChecks"]}
    assert ("parts", "table-sum") in codes, waiting["fieldChecks"]

    (link,) = wait_for_links(live_stack.state, 1, run_id=doc.run_id, stage_index=0)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(link.url)
        # An input per kind, as declared.
        assert page.locator("input[type=date][name='field.purchase_date']").count() == 1
        assert page.locator("select[name='field.product_line'] option").count() >= 3
        assert page.locator("input[type=checkbox][name='field.repair_requested']").count() == 1
        assert page.locator("input[name='table.parts.0.part']").input_value() == "Compressor"
        shots = Path(os.environ.get("DOCFLOW_SCREENSHOTS", tmp_path))
        page.screenshot(path=str(shots / "review-declared-type.png"), full_page=True)
        # The missing part goes in a blank row; the reviewer confirms the product line.
        page.select_option("select[name='field.product_line']", "appliances")
        page.fill("input[name='table.parts.2.part']", "Labour")
        page.fill("input[name='table.parts.2.quantity']", "1")
        page.fill("input[name='table.parts.2.cost']", "30.00")
        approve(page)

    done = wait_for(doc.document_id, {"finalized"}, doc.run_id)
    final = DocumentStore(load_settings().artifact_bucket).get_json(done["resultKey"])
    kept = final["summary"]["fields"]
    assert kept["claim_number"]["value"] == "WC-20417"
    assert kept["product_line"]["value"] == "appliances"
    parts = kept["parts"]
    assert parts["correctedBy"] and parts["original"][0]["part"] == "Compressor"
    assert [r["part"] for r in parts["rows"]] == ["Compressor", "Door seal", "Labour"]
    assert [r["cost"] for r in parts["rows"]] == ["120.00", "30.00", "30.00"]
