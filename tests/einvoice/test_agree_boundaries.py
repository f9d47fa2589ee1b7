"""The edges of a hybrid's page-versus-data agreement (`docflow/einvoice/agree.py`): a hybrid
with any check does not agree, a value that is no number is no total, and the masked sides keep
just as much of their tails as tells them apart and no more. Each test names the boundary it
guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from docflow.einvoice import EInvoice, detect, read
from docflow.einvoice.agree import (
    Agreement,
    PageValues,
    Printed,
    _masked_sides,
    agree,
    masked,
    same_number,
    same_total,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
IBAN = "FR2012542547256985425874698"
ATTACKER = "GB82WEST12345698765432"


def invoice() -> EInvoice:
    found = detect((DATA / "facturx-en16931.pdf").read_bytes())
    assert found is not None
    return read(found)


def test_a_hybrid_with_any_check_does_not_agree() -> None:
    assert Agreement({}, []).agrees
    assert not Agreement({}, [{"field": "iban"}]).agrees
    page = PageValues(Printed("F20260023", 1), Printed("104.90", 1), (Printed(ATTACKER, 1),))
    found = agree(invoice(), page)
    assert not found.agrees and [c.field for c in found.checks] == ["iban"]
    # The number and the total it did confirm are still said.
    assert sorted(found.agreed) == ["invoice_number", "total_amount"]


def test_a_total_is_compared_as_a_number_and_a_value_that_is_none_never_agrees() -> None:
    assert same_total("104.9", "104.90") and same_total(" 104.90 ", "104.900")
    assert not same_total("104.90", "104.91")
    assert not same_total("104.90", "n/a") and not same_total("x", "104.90")
    page = PageValues(total=Printed("one hundred", 1))
    (check,) = [c.to_json() for c in agree(invoice(), page).checks if c.field == "total_amount"]
    assert (check["xml"], check["page"]) == ("104.90", "one hundred")


def test_a_number_is_compared_trimmed_collapsed_and_case_folded() -> None:
    assert same_number("F 2026 0023", "  f 2026   0023 ")
    assert not same_number("F20260023", "F 2026 0023")  # a blank inside is kept as one
    assert not same_number("F20260023", "F20260024")
    # The XML's own number is collapsed before it is compared and shown.
    spaced = replace(invoice(), number="  F2026 0023 ")
    page = PageValues(number=Printed("F2026 0024", 1, [0.1, 0.1, 0.2, 0.2]))
    (check,) = [c.to_json() for c in agree(spaced, page).checks if c.field == "invoice_number"]
    assert check["xml"] == "F2026 0023"
    assert check["pageBox"] == {"page": 1, "box": [0.1, 0.1, 0.2, 0.2]}


def test_a_value_printed_nowhere_has_no_box() -> None:
    assert Printed("x").where() is None
    assert Printed("x", 2).where() == {"page": 2, "box": None}


def test_masked_sides_keep_just_enough_of_their_tails() -> None:
    assert masked(IBAN) == "FR•••• 4698"
    assert masked(IBAN, 6) == "FR•••• 874698"
    # Different last fours: four is enough.
    assert _masked_sides([IBAN], [ATTACKER]) == ("FR•••• 4698", "GB•••• 5432")
    # The same last four: one more character each until they differ.
    a, b = "DE00111122223333444455", "DE00111122223333944455"
    assert _masked_sides([a], [b]) == ("DE•••• 444455", "DE•••• 944455")
    # Differing only in their check digits: every character but the country is shown.
    assert _masked_sides(["DE89370400440532013000"], ["DE79370400440532013000"]) == (
        "DE•••• 89370400440532013000",
        "DE•••• 79370400440532013000",
    )
    # One side names none.
    assert _masked_sides([IBAN], []) == ("FR•••• 4698", "none")
    # Two accounts on a side are listed, each masked alike.
    assert _masked_sides([IBAN, ATTACKER], [IBAN]) == (
        "FR•••• 4698, GB•••• 5432",
        "FR•••• 4698",
    )


def test_sides_that_only_differ_in_order_agree_and_duplicates_count_once() -> None:
    other = "DE89370400440532013000"
    both = replace(invoice(), ibans=(IBAN, other))
    page = PageValues(ibans=(Printed(other, 1), Printed(IBAN, 1), Printed(IBAN.lower(), 2)))
    found = agree(both, page)
    assert found.agrees
    # The account agreed is the XML's first, where the page printed it.
    assert found.agreed["iban"] == Printed(IBAN, 1)
    # A page printing an account twice and nothing else agrees with the XML naming it once.
    twice = PageValues(ibans=(Printed(IBAN, 1), Printed(IBAN, 2)))
    assert agree(replace(invoice(), ibans=(IBAN,)), twice).agrees
    # A value with no account in it (blank) is no account on either side.
    blank = PageValues(ibans=(Printed("  ", 1),))
    assert [c.more["page"] for c in agree(invoice(), blank).checks] == ["none"]


def test_each_disagreement_says_what_differs_in_words_a_person_reads() -> None:
    page = PageValues(
        Printed("F20260024", 1), Printed("140.90", 1), (Printed(ATTACKER, 1, [0.1, 0.2, 0.3, 0.4]),)
    )
    said = {c.field: c.to_json()["message"] for c in agree(invoice(), page).checks}
    tail = "; a person checks which one the supplier sent"
    assert said == {
        "invoice_number": "invoice number: the XML says F20260023, the printed page says "
        "F20260024" + tail,
        "total_amount": "total with VAT: the XML says 104.90, the printed page says 140.90" + tail,
        "iban": "payee account: the XML says FR•••• 4698, the printed page says GB•••• 5432" + tail,
    }


def test_a_number_the_page_confirmed_is_agreed_where_it_was_printed() -> None:
    printed = Printed(" f20260023 ", 1, [0.6, 0.1, 0.8, 0.12])
    found = agree(invoice(), PageValues(number=printed))
    assert found.agreed["invoice_number"] == printed


def test_an_xml_without_an_invoice_number_compares_none() -> None:
    # The XML's number is what the page is held to: with none (or only blanks) there is
    # nothing to compare, whatever the page prints.
    for missing in (None, "", "   "):
        bare = replace(invoice(), number=missing)
        for printed in ("F20260023", "XXXX", ""):
            found = agree(bare, PageValues(number=Printed(printed, 1)))
            assert "invoice_number" not in found.agreed
            assert [c.field for c in found.checks if c.field == "invoice_number"] == []


def test_sides_differing_at_the_fifth_last_character_show_five() -> None:
    a, b = "DE89370400440532013000", "DE89370400440532023000"
    assert _masked_sides([a], [b]) == ("DE•••• 13000", "DE•••• 23000")
