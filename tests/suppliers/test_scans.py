"""Issue 59 item 3, pure: a scan of a known layout. Its lines sit off where the original printed
them and OCR misreads letters: the fingerprint matches after the page's shift (its anchors),
and a value whose digits OCR read as letters (`O`/`0`, `S`/`5`, `B`/`8`, `I`/`1`) is repaired
only where the repaired value fits what the profile learned (an id's shape; a date that
parses), and is marked so; one that fits nothing is not read at all."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.extract.rules_engine.layout import Page, from_words
from docflow.readers.base import Word
from docflow.suppliers import fingerprint as fp
from docflow.suppliers import ocr_repair, profile
from docflow.suppliers.layout_read import Trust, apply_layout

LINES = [
    "Kranich Druck GmbH",
    "Hafenstrasse 3, 20457 Hamburg",
    "RECHNUNG",
    "Belegkennung: E2026000000017",
    "Rechnungsdatum: 04.03.2026",
    "Rechnungsempfänger: Nordlicht Handel AG",
    "Gesamtbetrag: 1.190,00 EUR",
    "Zahlbar innerhalb von 14 Tagen ohne Abzug.",
]


def page(lines: list[str], dx: float = 0.0, dy: float = 0.0, ocr: float | None = None) -> Page:
    """Each line's words set out as a page does, moved by (dx, dy); `ocr`: the words' OCR
    confidence (a scan), or None (a text layer)."""
    words = []
    for i, line in enumerate(lines):
        x = 0.08 + dx
        y = 0.06 + i * 0.03 + dy
        for token in line.split():
            width = 0.012 * len(token)
            words.append(Word(token, (x, y, x + width, y + 0.015), ocr))
            x += width + 0.008
    return from_words(1, words)


def test_a_scan_shifted_on_its_sheet_with_misread_letters_matches_its_layout() -> None:
    learned = fp.lines_of([page(LINES)])
    misread = {
        "Kranich Druck": "Kranlch Drnck",
        "Hafenstrasse": "Hafenstrafse",
        "RECHNUNG": "RECHNUMG",
        "Belegkennung": "Be1egkennunq",
        "Rechnungsdatum": "Rechnnngsdatnm",
        "Gesamtbetrag": "Gesamtbetraq",
    }
    scan = [
        next((line.replace(a, b) for a, b in misread.items() if a in line), line) for line in LINES
    ]
    # Off where it printed, and letters misread.
    shifted = fp.lines_of([page(scan, dx=0.14, dy=0.25, ocr=82.0)])
    # Before: compared letter for letter, too few lines matched.
    assert fp.score(learned, shifted, scanned=True) >= fp.SCORE
    assert fp.match([learned], shifted, scanned=True).winner == 0
    # A text page's lines are held to their exact text.
    assert fp.score(learned, fp.lines_of([page(scan)])) < fp.score(
        learned, fp.lines_of([page(LINES)])
    )


def test_an_ocr_misread_id_is_repaired_only_where_it_then_fits_its_shape() -> None:
    entry = profile.learn_entry([page(LINES)], "invoice_number", "E2026000000017")
    assert entry is not None and entry["shape"] == r"E\d{13}"
    misread = [line.replace("E2026000000017", "E2O26000000O18") for line in LINES]
    found = profile.read([page(misread, ocr=71.0)], "invoice_number", entry)
    assert found is not None and found.value == "E2026000000018" and found.repaired
    # A text layer has no OCR: its letters are letters.
    assert profile.read([page(misread)], "invoice_number", entry) is None
    # Letters no digit looks like, or too many repairs, are no value.
    wrong = [line.replace("E2026000000017", "E2X26000000018") for line in LINES]
    assert profile.read([page(wrong, ocr=71.0)], "invoice_number", entry) is None


def test_an_ocr_misread_date_is_read_repaired() -> None:
    entry = profile.learn_entry([page(LINES)], "invoice_date", "2026-03-04")
    assert entry is not None
    misread = [line.replace("04.03.2026", "O4.O3.2O26") for line in LINES]
    found = profile.read([page(misread, ocr=70.0)], "invoice_date", entry)
    assert found is not None and found.value == "2026-03-04" and found.repaired


@settings(max_examples=200, deadline=None)
@given(token=st.text(alphabet="E0123456789OSBIlZGgDQsoxX-", min_size=1, max_size=18))
def test_a_repaired_id_always_fits_the_learned_shape(token: str) -> None:
    """Whatever OCR prints after the label, a repaired value fits the learned pattern (the
    check a repair must pass), and nothing is made of what does not."""
    shape = r"E\d{13}"
    fixed = ocr_repair.repaired_id(token, shape)
    if fixed is not None:
        import re

        assert re.fullmatch(shape, fixed)
        assert len(fixed) == len(token)


AMOUNT_LINES = [
    "Kranich Druck GmbH",
    "RECHNUNG",
    "Belegkennung: E2026000000017",
    "Nettobetrag: 1.000,00 EUR",
    "Umsatzsteuer 19%: 190,00 EUR",
    "Gesamtbetrag: 1.190,00 EUR",
]
AMOUNTS = ("net_amount", "tax_amount", "total_amount")
# The digit OCR's letter stands for (ocr_repair.CONFUSED), turned round: each digit and the
# letters a scan prints for it.
LETTERS_FOR = {
    d: [letter for letter, digit in ocr_repair.CONFUSED.items() if digit == d]
    for d in set(ocr_repair.CONFUSED.values())
}


def trusted_amounts() -> dict[str, Any]:
    learned = [page(AMOUNT_LINES)]
    out = {}
    for name, value in zip(AMOUNTS, ("1000.00", "190.00", "1190.00"), strict=True):
        entry = profile.learn_entry(learned, name, value)
        assert entry is not None and entry["shape"] == "amount,2", (name, entry)
        out[name] = {**entry, "confirmed": 2, "graded": {"hits": 1}}
    return out


def scan_with_total(total: str) -> list[Page]:
    return [page([*AMOUNT_LINES[:-1], f"Gesamtbetrag: {total} EUR"], ocr=74.0)]


def rules_read(net: str = "1000.00", tax: str = "190.00") -> dict[str, Any]:
    return {
        "net_amount": {"value": net, "confidence": 0.93},
        "tax_amount": {"value": tax, "confidence": 0.93},
    }


def test_an_ocr_misread_total_is_given_repaired_where_net_plus_tax_then_reaches_it() -> None:
    """`1.19O,OO` is no number, so the rules read no total; the layout's trusted entry reads it
    repaired, 1190.00, and gives it because the rules' net and tax add up to it."""
    entries = trusted_amounts()
    pages = scan_with_total("1.19O,OO")
    found = profile.read(pages, "total_amount", entries["total_amount"])
    assert found is not None and found.value == "1190.00" and found.repaired
    assert found.printed == "1.19O,OO"  # the box is where OCR printed it

    fields: Any = rules_read()
    out = apply_layout(fields, pages, entries, list(AMOUNTS), {1: 0.74}, {}, Trust())
    assert out.given == ["total_amount"]
    assert fields["total_amount"]["value"] == "1190.00" and fields["total_amount"]["repaired"]
    # It answers as the amounts a check held, where no repaired cell has reads.
    assert out.reads["total_amount"]["cells"][:2] == [
        "amount|scan-low|1|alone|repaired",
        "amount|scan-low|repaired",
    ]


@pytest.mark.parametrize(("net", "tax"), [("1000.00", "190.02"), ("999.98", "190.00")])
def test_a_repaired_total_the_amounts_do_not_reach_is_not_given(net: str, tax: str) -> None:
    """Two cents off (one is the checks' tolerance), and the repair is no value: a person
    reads the total."""
    fields: Any = rules_read(net, tax)
    out = apply_layout(
        fields,
        scan_with_total("1.19O,OO"),
        trusted_amounts(),
        list(AMOUNTS),
        {1: 0.74},
        {},
        Trust(),
    )
    assert "total_amount" not in fields and out.given == []


def test_a_repaired_total_takes_an_unsure_rules_reading_s_place_only_where_it_reconciles() -> None:
    """The rules read `19O,OO` as nothing and took some other number for the total, unsure: the
    profile's repaired read stands in its place only where the three then reconcile."""
    trust = Trust(thresholds={"total_amount": 0.9})
    for total, stands in (("1.19O,OO", True), ("1.18O,OO", False)):
        fields: Any = {**rules_read(), "total_amount": {"value": "14.00", "confidence": 0.4}}
        apply_layout(
            fields, scan_with_total(total), trusted_amounts(), list(AMOUNTS), {1: 0.74}, {}, trust
        )
        assert (fields["total_amount"]["value"] == "1190.00") is stands, total
        if not stands:
            assert fields["total_amount"]["value"] == "14.00"


@settings(max_examples=300, deadline=None)
@given(
    cents=st.integers(min_value=100, max_value=99_999_999_999),
    picks=st.lists(st.integers(min_value=0, max_value=30), max_size=8),
    letter=st.integers(min_value=0, max_value=3),
)
def test_a_misread_amount_is_repaired_to_what_was_printed(
    cents: int, picks: list[int], letter: int
) -> None:
    """Whatever digits of a printed amount OCR reads as the letters it confuses with them (at
    most four, and no more than the digits it left), the repair gives back what was printed,
    at the same length; an amount with no such letter is left as it is."""
    printed = f"{cents / 100:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".")
    chars = list(printed)
    spots = sorted({p % len(chars) for p in picks if chars[p % len(chars)] in LETTERS_FOR})
    for spot in spots:
        options = LETTERS_FOR[chars[spot]]
        chars[spot] = options[letter % len(options)]
    misread = "".join(chars)
    repaired = ocr_repair.amount_repaired(f"Summe: {misread} EUR")
    left = sum(c.isdigit() for c in misread)
    if left >= 2 and len(spots) <= left and len(spots) <= ocr_repair.MAX_REPAIRS:
        assert repaired == f"Summe: {printed} EUR"
    else:  # past what a repair may take: left as OCR read it
        assert repaired == f"Summe: {misread} EUR"
    assert ocr_repair.amount_repaired(f"Summe: {printed} EUR") == f"Summe: {printed} EUR"


@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(min_value=1, max_value=999_999).map(lambda c: f"{c / 100:.2f}"),
    misread=st.text(alphabet="0123456789OoSsBlIZGgDQ.,", min_size=3, max_size=10),
)
def test_a_forged_scan_s_repaired_total_is_given_only_if_it_is_what_the_amounts_say(
    total: str, misread: str
) -> None:
    """An attacker prints any run of digits and letters OCR confuses with them as the total of
    a known layout's scan: whatever the repair makes of it, the profile gives a total only if
    it is the rules' net plus tax."""
    net, tax = "1000.00", "190.00"
    fields: Any = rules_read(net, tax)
    apply_layout(
        fields, scan_with_total(misread), trusted_amounts(), list(AMOUNTS), {1: 0.74}, {}, Trust()
    )
    if "total_amount" in fields:
        assert Decimal(fields["total_amount"]["value"]) == Decimal(net) + Decimal(tax)
