"""Issue 59, cold (no layout, no registry): no value finalized wrong or left out with no person.
A page with a letter's date and an invoice date under date-like labels reads the labelled
invoice date or asks; a due date printed after a deadline the labels do not know (`A régler
avant le`) is not left out silently: the rules engine itself, through the extract step's
checks (`docflow.extract.checks`)."""

from __future__ import annotations

import pytest

from docflow.extract import build_engine
from docflow.extract.base import PageInput
from docflow.extract.checks.field_checks import check_fields
from docflow.rules.model import load_rules
from docflow.settings import load_settings

LETTER_DATES = {
    "the letter's date on the right": """Muster Software GmbH                Datum: 02.03.2026
Hauptstrasse 1, 10115 Berlin
Rechnung
Kundennr.        Rechnungsnr.        Rechnungsdatum
4711             RE-2026-114         27.02.2026
Gesamtbetrag: 1.190,00 EUR""",
    "a hyphenated invoice-date label": """Muster Software GmbH
Rechnung
Datum: 02.03.2026
Rechnungs-Nr.: RE-2026-114
Rechnungs-Datum: 27.02.2026
Gesamtbetrag: 1.190,00 EUR""",
    "a letter date in the address block": """Muster Software GmbH
Berlin, den 02.03.2026
Rechnung RE-2026-114
Rechnungsdatum: 27.02.2026
Gesamtbetrag: 1.190,00 EUR""",
}


def _read(text: str) -> tuple[dict[str, object], list[dict[str, str]]]:
    rules = load_rules().fields
    spec = rules.for_type("invoice")
    assert spec is not None
    engine = build_engine(load_settings())
    done = engine.extract(
        [PageInput(page=1, text=text, engine="textlayer", confidence=100.0)], spec
    )
    fields = {name: f.summary() for name, f in done.fields.items()}
    unread = {r["field"] for r in done.rejected}
    checks = check_fields(fields, spec, rules, unread, done.repairs, done.thresholds)
    return fields, [*checks, *done.findings]


@pytest.mark.parametrize("text", LETTER_DATES.values(), ids=list(LETTER_DATES))
def test_a_letters_date_is_never_finalized_as_the_invoice_date(text: str) -> None:
    fields, checks = _read(text)
    read = fields.get("invoice_date") or {}
    asked = {c.field for c in checks}
    assert read.get("value") == "2026-02-27" or "invoice_date" in asked, (read, checks)


def test_a_due_date_after_a_deadline_the_labels_do_not_know_is_never_left_out() -> None:
    page = """ACME SARL
FACTURE N° F-2026-114 du 27/02/2026
A régler avant le 29/03/2026
Total TTC 1 190,00 EUR"""
    fields, checks = _read(page)
    if "due_date" not in fields:  # before: left out, and nothing asked a person
        assert ("due_date", "unread-due-date") in {(c.field, c.code) for c in checks}
    # A page that prints no deadline asks nothing about one.
    _, checks = _read(page.replace("A régler avant le 29/03/2026", "Merci de votre confiance"))
    assert "unread-due-date" not in {c.code for c in checks}
