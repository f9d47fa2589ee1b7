"""A reviewer's correction holding a card number is refused by its cell (issue 56, item 5).

The desk used to read a table correction as one text, its cells joined into lines: a card in
one cell and the amount in the next made one run of digits that failed Luhn, and the card was
accepted into the decision, the run's history and the record. Each cell is read alone now, the
refusal names the row (as the page numbers it) and the column, and the page comes back with
the typed card masked in its cell.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import lxml.html
import pytest

from docflow.review.decision_form import DecisionForm, FieldProblem, checked_decision
from docflow.settings import load_settings
from tests.support.aws import Stack
from tests.support.claim_form import (
    CLAIMS,
    READ,
    RULES,
    claim_decl,
    link_of,
    one,
    post_form,
    render,
    upload_claim,
)
from tests.support.review_desk import Desk, call, open_desk

REVIEW_ON = ("card_number", "us_ssn", "iban")
REFUSED = "this holds a card number: no field keeps one"


def form_of(pairs: list[tuple[str, str]]) -> DecisionForm:
    return DecisionForm.parse(urlencode([("decision", "approve"), *pairs]))


def whole(text: str) -> bool:
    return "4111111111111111" in re.sub(r"\D", "", text)


@pytest.mark.parametrize("card", ["4111 1111 1111 1111", "4111.1111.1111.1111"])
def test_a_card_in_a_cell_before_an_amount_is_refused_by_its_cell(card: str) -> None:
    form = form_of(
        [
            ("table.items.0.item", "Windscreen"),
            ("table.items.0.cost", "420.00"),
            ("table.items.1.remove", "yes"),  # the page's row 2, removed
            ("table.items.2.item", f"Paid by card {card}"),  # row 3: the card ...
            ("table.items.2.cost", "2"),  # ... and the amount in the next cell
        ]
    )
    with pytest.raises(FieldProblem) as problem:
        checked_decision(form, link_of(READ), CLAIMS, REVIEW_ON, claim_decl())
    assert problem.value.errors == {"items": f"row 3, item: {REFUSED}"}
    assert problem.value.status == 400

    # The page comes back with the message by the table and the card masked in its cell.
    page = render(READ, tables=form.tables, field_errors=problem.value.errors)
    cell = one(page, '//input[@name="table.items.2.item"]')
    assert cell.get("value") == "Paid by card •••• 1111"
    group = one(page, '//*[@id="field-items"]/ancestor::div[contains(@class, "field")]')
    assert one(group, './/span[@class="error-message"]').text_content() == f"row 3, item: {REFUSED}"
    assert not whole(lxml.html.tostring(page, encoding="unicode"))


def test_a_dotted_card_in_a_field_is_refused_and_a_cell_of_figures_is_not() -> None:
    dotted = form_of([("field.holder_address", "Card 4111.1111.1111.1111, Leeds")])
    with pytest.raises(FieldProblem) as problem:
        checked_decision(dotted, link_of(READ), CLAIMS, REVIEW_ON, claim_decl())
    assert problem.value.errors == {"holder_address": REFUSED}
    # Cells are never joined: an item named by a long number and its cost are no card, though
    # the two written as one line would hold one (4111 1111 1111 111 + 1 is a Visa number).
    figures = form_of(
        [
            ("table.items.0.item", "Part 4111 1111 1111 111"),
            ("table.items.0.cost", "1"),
        ]
    )
    decision = checked_decision(figures, link_of(READ), CLAIMS, REVIEW_ON, claim_decl())
    assert decision.corrections["items"] == [{"item": "Part 4111 1111 1111 111", "cost": "1.00"}]


def test_the_desk_answers_a_card_in_a_cell_with_a_400_and_decides_nothing(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(RULES + '\n[sensitive]\nreview_on = ["card_number", "us_ssn"]\n')
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "120")
    load_settings.cache_clear()
    try:
        with open_desk(stack, Desk) as desk:
            doc, _ = upload_claim(desk)
            (token,) = desk.links(doc, stage=0)
            typed = [
                ("decision", "approve"),
                ("table.items.0.item", "Windscreen 4111.1111.1111.1111"),
                ("table.items.0.cost", "420"),
            ]
            refused = post_form(token, typed)
            assert refused["statusCode"] == 400 and not desk.callbacks.sent
            assert f"row 1, item: {REFUSED}" in refused["body"]
            assert "Windscreen •••• 1111" in refused["body"]
            assert not whole(refused["body"])
            # The same row without the card decides.
            fixed = [(k, "Windscreen" if k.endswith("item") else v) for k, v in typed]
            assert post_form(token, fixed)["statusCode"] == 200
            assert not whole(call("GET", f"/review/{token}")["body"])
    finally:
        load_settings.cache_clear()
