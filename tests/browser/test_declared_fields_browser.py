"""A declared type's fields in a real Chromium, with no script: a reviewer picks a date,
chooses an enum's value, ticks a checkbox, edits a table's cell, removes a row and adds one,
approves, and the decision the execution reads carries each of them (the page as rendered and
the decision's checks: tests/review/test_declared_fields.py). At a phone's width nothing is
wider than the screen; the screenshots are the docs' (docs/reviewers.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import screenshots
from tests.support.aws import Stack
from tests.support.browser import chromium, not_blank
from tests.support.claim_form import CHECK, claim_desk, post_form, upload_claim
from tests.support.review_server import serve_review_pages

SHOTS = screenshots.folder()


@pytest.mark.browser
def test_a_reviewer_fills_a_declared_type_in_a_real_browser(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = SHOTS or tmp_path
    with claim_desk(stack, tmp_path, monkeypatch) as desk:
        doc, arn = upload_claim(desk)
        (first,) = desk.links(doc, stage=0)
        rows = [
            ("decision", "approve"),
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "420.00"),
            ("table.items.1.item", "Mirror"),
            ("table.items.1.cost", "35.00"),
        ]
        assert post_form(first, rows)["statusCode"] == 200  # the first stage reads the table
        (second,) = desk.links(doc, stage=1)

        with serve_review_pages() as origin, chromium() as browser:
            for size, width, height in (("phone", 390, 844), ("desktop", 1280, 900)):
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{origin}/review/{second}")
                fields = page.locator("fieldset#fields")
                assert page.locator("#field-claim_date").get_attribute("type") == "date"
                assert page.locator("#field-items tbody tr.read").count() == 2
                assert page.locator("#field-items tbody tr.new").count() == 3
                assert page.evaluate("document.documentElement.scrollWidth") <= width, size
                # The table scrolls within its own box where the screen is narrower than it.
                editor = page.locator("#field-items").bounding_box()
                assert editor["x"] >= 0 and editor["x"] + editor["width"] <= width, size
                if size == "phone":  # as it opens
                    fields.screenshot(path=str(shots / "review-declared-fields-phone.png"))
                    page.close()

            page.fill("#field-claim_date", "2026-03-02")  # the date picker's own value
            page.select_option("#field-cover", "Comprehensive")
            page.check("#field-police_report")
            page.fill('input[name="table.items.1.cost"]', "36,50")
            page.check('input[name="table.items.0.remove"]')
            page.fill('input[name="table.items.2.item"]', "Bulb")
            page.fill('input[name="table.items.2.cost"]', "8")
            # A removed row is struck through as it is ticked (CSS `:has`, no script).
            struck = page.locator('input[name="table.items.0.item"]')
            assert "line-through" in struck.evaluate("e => getComputedStyle(e).textDecoration")
            shot = shots / "review-declared-fields.png"  # filled in, before Approve
            fields.screenshot(path=str(shot))
            assert not_blank(shot.read_bytes())
            page.click("button.approve")
            page.wait_for_selector(".approved-values")
            approved = page.locator(".approved-values").inner_text()
            assert "Items\n2 rows" in approved and "Police report\ntrue" in approved
        out = desk.result(arn)
    assert out["status"] == "finalized"
    fields = out["fields"]
    assert {k: fields[k]["value"] for k in ("claim_date", "cover", "police_report")} == {
        "claim_date": "2026-03-02",
        "cover": "Comprehensive",
        "police_report": "true",
    }
    assert fields["items"]["rows"] == [
        {"item": "Mirror", "cost": "36.50"},
        {"item": "Bulb", "cost": "8.00"},
    ]
    assert fields["items"]["correctedBy"] == CHECK
