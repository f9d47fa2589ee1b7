"""Issue 47, pure: a supplier's layout fingerprint (matched, told apart from a look-alike of
the same invoicing software, a blank or one-line page matching nothing) and profile entries
read from their label rather than from a fixed place (a longer address, an extra line)."""

from __future__ import annotations

from docflow.extract.rules_engine.layout import from_text
from docflow.suppliers import fingerprint as fp
from docflow.suppliers import profile
from docflow.suppliers.hook import _filled_amounts
from docflow.suppliers.match import layout_match
from docflow.suppliers.model import Supplier

# Two suppliers invoicing with one software: the same labels, body and footer, their own
# name, address and ids. Their VAT ids fail their checks: nothing but the layout names them.
KRANICH = ("Kranich Druck GmbH", "Hafenstrasse 3", "20457 Hamburg", "DE812345670")
REIHER = ("Reiher Medien KG", "Am Markt 9", "28195 Bremen", "DE999999999")


def invoice(
    who: tuple[str, str, str, str],
    number: str,
    amount: str,
    item: str = "Lagerung Februar",
    address: tuple[str, ...] = (),
    lines: tuple[str, ...] = (),
) -> str:
    name, street, city, vat = who
    return "\n".join(
        [
            name,
            street,
            *address,
            city,
            f"USt-IdNr.: {vat}",
            "RECHNUNG",
            f"Belegkennung: {number}",
            f"Rechnungsdatum: 0{number[-1]}.03.2026",
            "Rechnungsempfänger: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
            f"{item}                      {amount},00 EUR",
            *lines,
            f"Nettobetrag: {amount},00 EUR",
            "MwSt. 19%: 190,00 EUR",
            "Gesamtbetrag: 1.190,00 EUR",
            "Zahlbar innerhalb von 14 Tagen ohne Abzug.",
            f"{name} - Sparkasse - IBAN DE89 3704 0044 0532 0130 00",
            "Erstellt mit FakturaPro 7",
        ]
    )


def lines_of(text: str) -> list[fp.Line]:
    return fp.lines_of([from_text(1, text)])


def taught(who: tuple[str, str, str, str]) -> list[fp.Line]:
    """The fingerprint two confirmed invoices of other numbers, amounts and items leave."""
    first = fp.merged([], lines_of(invoice(who, "E2026000000017", "1.000")))
    return fp.merged(first, lines_of(invoice(who, "E2026000000018", "2.400", item="Druck März")))


def test_the_values_that_change_fall_away_and_the_own_lines_stay() -> None:
    learned = taught(KRANICH)
    texts = [str(line[0]) for line in learned]
    assert "kranich druck gmbh" in texts and "hafenstrasse #" in texts
    assert "belegkennung: #" in texts and "gesamtbetrag: # eur" in texts
    # The line item of one invoice is not the layout; no digit is kept.
    assert not any("lagerung" in t or "druck marz" in t for t in texts)
    assert not any(c.isdigit() for t in texts for c in t)


def test_a_later_invoice_matches_with_a_longer_address_and_an_extra_line() -> None:
    fingerprints = [taught(KRANICH)]
    later = invoice(
        KRANICH, "E2026000000019", "3.100", address=("Gebäude 4",), lines=("Versand 20,00 EUR",)
    )
    verdict = fp.match(fingerprints, lines_of(later))
    assert verdict.winner == 0 and verdict.score >= fp.SCORE
    # Another layout altogether is not it.
    other = "\n".join(["Quittung", "Betrag 12,00", "Danke für Ihren Einkauf", "Kasse 3", "Bon 4"])
    assert fp.match(fingerprints, lines_of(other)).winner is None


def test_look_alike_templates_are_told_apart_by_their_own_lines() -> None:
    fingerprints = [taught(KRANICH), taught(REIHER)]
    # Each shares most lines with the other, yet is named by its own (name, address, footer).
    kranich = lines_of(invoice(KRANICH, "E2026000000020", "1.500"))
    reiher = lines_of(invoice(REIHER, "R-77", "900"))
    assert fp.score(fingerprints[1], kranich) < fp.SCORE <= fp.score(fingerprints[0], kranich)
    assert fp.match(fingerprints, kranich).winner == 0
    assert fp.match(fingerprints, reiher).winner == 1


def test_look_alikes_whose_own_lines_are_not_printed_name_neither() -> None:
    """Each supplier's one own line (its name) is missing from the page: both layouts match,
    nothing tells them apart, and the page is ambiguous (a person says whose it is)."""
    shared = [
        [f"label number {word} #", 0.0, round(i / 20, 3)] for i, word in enumerate("abcdefghi")
    ]
    kranich = [["kranich druck gmbh", 0.0, 0.9], *shared]
    reiher = [["reiher medien kg", 0.0, 0.9], *shared]
    page = [list(line) for line in shared]
    verdict = fp.match([kranich, reiher], page)
    assert verdict.winner is None and verdict.ambiguous
    assert fp.match([kranich, reiher], [*page, ["kranich druck gmbh", 0.0, 0.9]]).winner == 0


def test_a_third_supplier_of_the_same_software_is_read_with_nobodys_profile() -> None:
    """A supplier nobody taught, on the same software: its page shares every line but the
    own ones with Kranich's layout; it names no registered supplier."""
    storch = ("Storch Verpackung AG", "Weg 1", "10115 Berlin", "DE000000000")
    suppliers = [
        Supplier.parse({"supplierId": "kranich", "name": KRANICH[0]}),
        Supplier.parse({"supplierId": "reiher", "name": REIHER[0]}),
    ]
    suppliers = [
        Supplier.parse({**s.to_json(), "profile": {"fingerprint": taught(who)}})
        for s, who in zip(suppliers, (KRANICH, REIHER), strict=True)
    ]
    page = [from_text(1, invoice(storch, "S-1", "700"))]
    assert layout_match(suppliers, page, None) is None
    own = layout_match(suppliers, [from_text(1, invoice(KRANICH, "E1", "700"))], None)
    assert own is not None and own.supplier.supplier_id == "kranich" and own.by == "fingerprint"
    # The page's issuer name, read with confidence, is another's: the layout alone is no proof.
    assert layout_match(suppliers, [from_text(1, invoice(KRANICH, "E1", "7"))], "Storch AG") is None


def test_a_blank_or_one_line_page_matches_nothing_and_teaches_nothing() -> None:
    fingerprints = [taught(KRANICH)]
    assert lines_of("") == []
    assert fp.match(fingerprints, lines_of("")).winner is None
    assert fp.match(fingerprints, lines_of(KRANICH[0])).winner is None
    # A fingerprint learned from a one-line page is none, and matches nothing either.
    learned = fp.with_layout({"fields": {}}, {}, lines_of(KRANICH[0]))
    assert "fingerprint" not in learned
    assert fp.score(lines_of(KRANICH[0]), lines_of(KRANICH[0])) == 0.0


def test_a_fingerprint_is_small() -> None:
    """It lives in the supplier's registry item (DynamoDB's 400 KB limit): a page of 500 long
    lines keeps MAX_LINES of at most MAX_TEXT characters."""
    long = "\n".join(f"Zeile {i} " + "Lorem ipsum dolor sit amet " * 8 for i in range(500))
    learned = fp.merged([], lines_of(long))
    assert len(learned) == fp.MAX_LINES
    assert len(str(learned)) < 8_000


PAGE = invoice(KRANICH, "E2026000000017", "1.000")


def test_a_profile_reads_from_its_label_after_a_longer_address_and_an_extra_line() -> None:
    entry = profile.learn_entry([from_text(1, PAGE)], "invoice_number", "E2026000000017")
    assert entry is not None and entry["label"] == "Belegkennung" and "offset" in entry
    # Five more address lines push the label and its value down together (and two more lines
    # in the body below them).
    address = ("c/o Einkauf", "Gebäude 4", "Hof 2", "Postfach 7", "Eingang B")
    moved = invoice(KRANICH, "E2026000000018", "1.000", address=address, lines=("x", "y"))
    found = profile.read([from_text(1, moved)], "invoice_number", entry)
    assert found is not None and found.value == "E2026000000018"
    # The same entry read inside its fixed region only (as before offsets) misses it.
    fixed = {k: v for k, v in entry.items() if k != "offset"}
    assert profile.read([from_text(1, moved)], "invoice_number", fixed) is None  # type: ignore[arg-type]
    # The value printed far from its label is not where the supplier prints it.
    apart = PAGE.replace("Belegkennung: E2026000000017", "Belegkennung:\n\n\n\n\nE2026000000019")
    assert profile.read([from_text(1, apart)], "invoice_number", entry) is None


def test_a_profile_supplies_an_unread_amount_only_where_it_reconciles() -> None:
    """The rules read net and tax but not the total (a smudge): the profile's total, read
    after its label, is taken only where net + tax = total holds with it."""
    layouts = [from_text(1, PAGE)]
    entry = profile.learn_entry(layouts, "total_amount", "1190.00")
    assert entry is not None and entry["label"] == "Gesamtbetrag"
    entries = {"total_amount": {**entry, "confirmed": 2}}
    names = ["net_amount", "tax_amount", "total_amount"]
    rules_read = {"net_amount": {"value": "1000.00"}, "tax_amount": {"value": "190.00"}}
    assert _filled_amounts(rules_read, layouts, entries, names, 2) == {"total_amount"}
    # The same read net + tax != total: a person reads it.
    odd = {**rules_read, "tax_amount": {"value": "180.00"}}
    assert _filled_amounts(odd, layouts, entries, names, 2) == set()
    # One review decides nothing.
    once = {"total_amount": {**entry, "confirmed": 1}}
    assert _filled_amounts(rules_read, layouts, once, names, 2) == set()
