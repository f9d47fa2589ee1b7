"""The profile's rules, pure: shapes, where a value is learned and read, misses that suspend
an entry until a person confirms the field again; and the hook's rule that a layout's profile
and the rules disagreeing sends the field to a person (moto for the registry's table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docflow.extract.base import PageInput
from docflow.extract.rules_engine.layout import from_text
from docflow.settings import load_settings
from docflow.suppliers import profile, trust
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.hook import consult
from docflow.suppliers.store import SupplierStore
from tests.suppliers.layouts import put_layout, trusted
from tests.suppliers.papers import BLAUWAL_VAT
from tests.support.aws import Stack

BLAUWAL = "Blauwal Hafenlogistik GmbH"
PAGE = f"""{BLAUWAL}
USt-IdNr.: {BLAUWAL_VAT}
RECHNUNG
Belegkennung: E2026000000017
Gesamtbetrag: 1.190,00 EUR"""


def test_shapes_keep_the_prefix_and_count_the_rest() -> None:
    assert profile.shape_of("E2026000000017", "id") == r"E\d{13}"
    assert profile.shape_of("INV-2024-001", "id") == r"INV\-\d{4}\-\d{3}"
    assert profile.shape_of("2026-03-04", "date") == "date"


def test_a_value_is_learned_after_its_label_and_read_there_again() -> None:
    entry = profile.learn_entry([from_text(1, PAGE)], "invoice_number", "E2026000000017")
    assert entry is not None and entry["label"] == "Belegkennung"
    again = PAGE.replace("E2026000000017", "E2026000000018")
    found = profile.read([from_text(1, again)], "invoice_number", entry)
    assert found is not None and found.value == "E2026000000018"
    # Another shape after the label is not read; nor is the label elsewhere on the page.
    assert (
        profile.read([from_text(1, PAGE.replace("E2026000000017", "X-1"))], "invoice_number", entry)
        is None
    )
    moved = "\n".join(["x"] * 30) + "\n" + PAGE
    assert profile.read([from_text(1, moved)], "invoice_number", entry) is None


def test_two_misses_suspend_an_entry_until_a_person_confirms_again() -> None:
    entry = {"label": "Belegkennung", "region": [0, 0, 1, 1], "page": 1, "shape": r"E\d{13}"}
    p = trust.updated({}, "run-1", {"invoice_number": entry}, {})
    assert p is not None and trust.updated(p, "run-1", {"invoice_number": entry}, {}) is None
    p = trust.updated(p, "run-2", {"invoice_number": entry}, {"invoice_number": "miss"})
    assert p is not None and not p["fields"]["invoice_number"]["suspended"]
    p = trust.updated(p, "run-3", {"invoice_number": entry}, {"invoice_number": "miss"})
    assert p is not None and p["fields"]["invoice_number"]["suspended"]
    assert p["fields"]["invoice_number"]["suspendedWhy"] == "misses"
    assert (
        profile.read([from_text(1, PAGE)], "invoice_number", p["fields"]["invoice_number"]) is None
    )
    p = trust.updated(p, "run-4", {"invoice_number": entry}, {})
    assert p is not None and not p["fields"]["invoice_number"]["suspended"]
    assert p["fields"]["invoice_number"]["misses"] == 0


def test_a_profile_and_the_rules_disagreeing_goes_to_a_person(stack: Stack) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    entry = profile.learn_entry([from_text(1, PAGE)], "invoice_number", "E2026000000017")
    put_layout(PAGE, BLAUWAL, {"invoice_number": trusted(entry)})
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    rules_read = {"invoice_number": {"value": "RE-1", "confidence": 0.95, "page": 1, "box": None}}
    out = consult(store, [page], rules_read, ["invoice_number", "vendor_name"])
    assert out.fields["invoice_number"]["value"] == "RE-1"
    assert out.fields["invoice_number"]["confidence"] <= 0.5
    assert [c.code for c in out.checks] == ["profile-disagrees"]
    assert out.fields["vendor_name"]["value"] == "Blauwal Hafenlogistik GmbH"
    agreed = consult(store, [page], {}, ["invoice_number"])
    assert agreed.fields["invoice_number"]["source"] == "profile" and not agreed.checks


def test_the_review_page_does_not_say_an_issuers_iban_routes_it() -> None:
    from docflow.review.stage.for_review import ForReview
    from docflow.suppliers.shown import routes_on

    def routes(shown: dict[str, object]) -> tuple[str, ...]:
        read = ForReview.from_json(shown)
        return routes_on(review_on, read.summary, read.sent_for_sensitive)

    issuer = {"iban": "DE•••• 3000", "valid": True, "owner": "issuer", "why": "footer"}
    other = {**issuer, "owner": "other", "why": "debit-mandate"}
    review_on = ("card_number", "iban")
    assert routes({"ibans": [issuer]}) == ("card_number",)
    assert routes({"ibans": [issuer, other]}) == review_on
    held = {"ibans": [issuer], "route": [{"name": "privacy", "because": "sensitive"}]}
    assert routes(held) == review_on
    assert routes({}) == review_on  # a contract: no judgement, today's words


def test_an_amount_from_the_profile_alone_is_not_taken(stack: Stack) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    entry = profile.learn_entry([from_text(1, PAGE)], "total_amount", "1190.00")
    assert entry is not None and entry["label"] == "Gesamtbetrag"
    assert entry["shape"] == "amount,2"  # a decimal comma and two places, as printed
    put_layout(PAGE, BLAUWAL, {"total_amount": trusted(entry)})
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    alone = consult(store, [page], {}, ["total_amount"])
    assert "total_amount" not in alone.fields

    def amounts(net: str, tax: str, total: str) -> dict[str, dict[str, object]]:
        read = {"net_amount": net, "tax_amount": tax, "total_amount": total}
        return {k: {"value": v, "confidence": 0.7, "page": 1, "box": None} for k, v in read.items()}

    names = ["net_amount", "tax_amount", "total_amount"]
    agreed = consult(store, [page], amounts("1000.00", "190.00", "1190.00"), names)
    assert agreed.fields["total_amount"]["source"] == "profile"
    assert agreed.fields["total_amount"]["confidence"] >= 0.7  # the layout's read, or the rules'
    assert agreed.shown["profileFields"] == ["total_amount"]
    # Where net + tax = total does not check the total, the profile's place confirms nothing.
    unchecked = consult(store, [page], amounts("1000.00", "90.00", "1190.00"), names)
    assert "source" not in unchecked.fields["total_amount"]
    assert unchecked.fields["total_amount"]["confidence"] == 0.7
    # Nor is an amount in another printed form read there (`27102011` where `542,31` was).
    bare = PAGE.replace("1.190,00", "1190")
    assert profile.read([from_text(1, bare)], "total_amount", entry) is None


def test_a_checked_id_match_supplies_the_currency_the_page_does_not_name(stack: Stack) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(
        store, f"id,name,vat,currency\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},EUR\n"
    )
    bare = PAGE.replace(" EUR", "")
    page = PageInput(page=1, text=bare, engine="textlayer", confidence=100.0)
    out = consult(store, [page], {}, ["currency", "vendor_name"])
    assert out.fields["currency"]["value"] == "EUR"
    assert out.fields["currency"]["source"] == "registry"
    named = {"currency": {"value": "USD", "confidence": 0.9, "page": 1, "box": None}}
    kept = consult(store, [page], named, ["currency"])
    assert kept.fields["currency"]["value"] == "USD"  # the page's own currency stands


def test_a_field_a_person_left_empty_is_asked_about_when_the_rules_read_one(
    stack: Stack,
) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    put_layout(PAGE, BLAUWAL, {"po_number": {"absent": True, "confirmed": 1}})
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    stray = {"po_number": {"value": "8587333880", "confidence": 0.9, "page": 1, "box": None}}
    out = consult(store, [page], stray, ["po_number"])
    assert [c.code for c in out.checks] == ["profile-disagrees"]
    assert out.fields["po_number"]["confidence"] <= 0.5
    assert not consult(store, [page], {}, ["po_number"]).checks


def test_an_order_number_printed_after_its_own_label_is_the_pages_word(stack: Stack) -> None:
    """One review that left the PO empty says little about the next order: a PO printed
    after its own label (`Your order AB321`) stands; one read under a table's column header
    still asks a person."""
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    put_layout(PAGE, BLAUWAL, {"po_number": {"absent": True, "confirmed": 1}})
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    read = {"po_number": {"value": "AB321", "confidence": 0.95, "page": 1, "box": None}}
    beside = {"source": "label", "position": 0.95, "label": 1.0}
    out = consult(store, [page], read, ["po_number"], {"po_number": beside})
    assert not out.checks and out.fields["po_number"]["confidence"] == 0.95
    under = {"source": "label", "position": 0.88, "label": 1.0}
    out = consult(store, [page], read, ["po_number"], {"po_number": under})
    assert [c.code for c in out.checks] == ["profile-disagrees"]


def test_a_label_is_the_words_after_the_last_value_before_it() -> None:
    page = "Datum: 20 april 2022 Nummer: 3906541086000\nTotaal: 22,50"
    entry = profile.learn_entry([from_text(1, page)], "invoice_number", "3906541086000")
    assert entry is not None and entry["label"] == "Nummer"
    rate = "Nettobetrag (zzgl. 19,00% MwSt.): 376,37"
    entry = profile.learn_entry([from_text(1, rate)], "net_amount", "376.37")
    assert entry is not None and entry["label"] == "Nettobetrag (zzgl. 19,00% MwSt.)"


def test_the_customers_vat_id_is_never_the_issuers() -> None:
    from docflow.suppliers.match import issuer_tax_ids

    page = f"Au bon moulin SARL\nTVA : {BLAUWAL_VAT}\nN° TVA client   FR19787878784\n"
    found = [t.value for t in issuer_tax_ids([from_text(1, page)])]
    assert found == [BLAUWAL_VAT]


def test_a_forms_boxed_id_is_read_under_its_label_outside_the_customers_block() -> None:
    from docflow.suppliers.match import issuer_tax_ids

    page = (
        "NATUREZA DA OPERACAO      CNPJ / CPF\n"
        "Venda                     81.583.054/0001-29\n"
        "DESTINATARIO / REMETENTE\n"
        "NOME / RAZAO SOCIAL       CNPJ / CPF\n"
        "Cliente Ltda              02.364.958/0001-97\n"
    )
    found = [(t.kind, t.value, t.valid) for t in issuer_tax_ids([from_text(1, page)])]
    assert found == [("cnpj", "81583054000129", True)]


def test_an_argentine_cuit_is_the_issuers_unless_it_opens_the_customers_line() -> None:
    from docflow.suppliers.match import issuer_tax_ids

    page = (
        "Razón Social: GARCIA MARCOS ANDRES      CUIT:   20315600449\n"
        "CUIT:   30500017704   Apellido y Nombre / Razón Social: LA SEGUNDA COOPERATIVA\n"
    )
    found = [(t.kind, t.value, t.valid) for t in issuer_tax_ids([from_text(1, page)])]
    assert found == [("cuit", "20315600449", True)]


def test_a_learned_label_with_another_number_is_another_label() -> None:
    page = "IVA 27%: $      0,00\nIVA 21%: $      39613,64\nImporte Total: $   228250,00\n"
    entry = profile.learn_entry([from_text(1, page)], "tax_amount", "39613.64")
    assert entry is not None and entry["label"] == "IVA 21%: $"
    found = profile.read([from_text(1, page)], "tax_amount", entry)
    assert found is not None and found.value == "39613.64"
    # Where the 21% line is not read, the 27% line in its place (a ratio of 90) is not it.
    other = "IVA 10%: $      5,00\nIVA 27%: $      0,00\nImporte Total: $   228250,00\n"
    assert profile.read([from_text(1, other)], "tax_amount", entry) is None


def test_show_says_a_learned_field_is_absent(
    stack: Stack, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 44 item 11: `suppliers show` printed a blank label and shape for a field a
    reviewer left empty (`{"absent": true}`)."""
    from docflow.cli import main

    layout = put_layout(PAGE, BLAUWAL, {"po_number": {"absent": True, "confirmed": 1}})
    # A state folder of its own with no stack in it: the sandbox's table, never a stack's.
    assert main(["--state", str(tmp_path), "suppliers", "show", layout.layout_id]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if "po_number" in line]
    assert "absent (a reviewer left it empty)" in row


def test_a_trusted_record_of_printing_none_drops_an_unsure_reading_only(stack: Stack) -> None:
    """A layout whose reviews graded its `absent` record right: an unsure rules reading of
    that field (a date after some other label) is dropped; a sure one still asks a person."""
    from docflow.suppliers.layout_read import Trust

    absent = {"absent": True, "confirmed": 2, "graded": {"hits": 1, "misses": 0}}
    put_layout(PAGE, BLAUWAL, {"due_date": absent})
    store = SupplierStore(load_settings().supplier_table)
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    trust = Trust(thresholds={"due_date": 0.905})
    unsure = {"due_date": {"value": "2026-02-24", "confidence": 0.6, "page": 1, "box": None}}
    out = consult(store, [page], unsure, ["due_date"], trust=trust)
    assert "due_date" not in out.fields and not out.checks
    assert out.detail["profileDropped"] == ["due_date"]
    sure = {"due_date": {**unsure["due_date"], "confidence": 0.95}}
    out = consult(store, [page], sure, ["due_date"], trust=trust)
    assert [c.code for c in out.checks] == ["profile-disagrees"]
    # Untrusted (one review), it drops nothing: it doubts.
    put_layout(PAGE, BLAUWAL, {"due_date": {"absent": True, "confirmed": 1}})
    out = consult(store, [page], unsure, ["due_date"], trust=trust)
    assert [c.code for c in out.checks] == ["profile-disagrees"]


def test_an_amount_is_confirmed_by_its_tax_rate_where_no_total_is_printed() -> None:
    from docflow.suppliers.layout_read import checked_amounts

    read = {"net_amount": {"value": "100.00"}, "tax_amount": {"value": "22.00"}}
    assert checked_amounts(read, {}) == set()
    assert checked_amounts(read, {"tax_amount": {"tax_rate": "match"}}) == {
        "net_amount",
        "tax_amount",
    }
    assert checked_amounts(read, {"tax_amount": {"tax_rate": "mismatch"}}) == set()
    whole = {**read, "total_amount": {"value": "122.00"}}
    assert checked_amounts(whole, {}) == {"net_amount", "tax_amount", "total_amount"}


def test_a_trusted_record_of_no_total_settles_an_unreadable_label(stack: Stack) -> None:
    """The rules find a total's label with no value after it (`unreadable`, a person asked):
    a layout whose graded record says it never prints a total settles it; an untrusted one
    does not."""
    put_layout(
        PAGE, BLAUWAL, {"total_amount": {"absent": True, "confirmed": 2, "graded": {"hits": 1}}}
    )
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    store = SupplierStore(load_settings().supplier_table)
    assert consult(store, [page], {}, ["total_amount"]).settled == {"total_amount"}
    put_layout(PAGE, BLAUWAL, {"total_amount": {"absent": True, "confirmed": 1}})
    assert consult(store, [page], {}, ["total_amount"]).settled == set()
