""" "Add this supplier" (issue 28 part 2): a fields reviewer of an invoice whose issuer the
registry does not know registers it from the page, with the checked ids the document prints,
and the same review teaches its profile; the supplier's next invoice goes straight through.
Through the real handler (durable testing runner, moto, the shipped rules) and the desk."""

from __future__ import annotations

from collections.abc import Callable

from docflow.suppliers.enrol import enrol, issuer_ids
from docflow.suppliers.shown import supplier_offer
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

APPROVE = {"approved": True, "reviewer": "ap@example.com"}


def test_a_reviewer_adds_the_supplier_and_its_next_invoice_needs_nobody(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    # One review trusts the profile and nothing is audited here (tests/suppliers/test_learning
    # holds the controls); this is about what the review registers.
    use_rules(min_confirmations=1, first=0, rate=0.0)
    number = "E2026000000017"
    answer = {**APPROVE, "corrections": {"invoice_number": number}, "addSupplier": True}
    first, waited, ran = run_reviewed(stack, blauwal_invoice(number), "in/first.pdf", [answer])
    # The page offered it: the issuer's checked VAT id and its IBAN, masked.
    offered = supplier_offer({**waited[0], "fields": waited[0].get("fields") or {}})
    assert f"VAT {BLAUWAL_VAT}" in offered and any(o.startswith("IBAN DE") for o in offered)
    assert first["status"] == "finalized"
    assert first["supplier"]["by"] == "review" and first["supplier"]["certain"] is True
    assert ran.get_step("register supplier") is not None
    assert ran.get_step("learn supplier profile") is not None
    added = registry().get(first["supplier"]["supplierId"])
    assert added is not None
    assert added.ids == {"vat": (BLAUWAL_VAT,), "iban": (BLAUWAL_IBAN.replace(" ", ""),)}
    assert added.profile["fields"]["invoice_number"]["label"] == "Belegkennung"

    second, waited, _ = run_reviewed(stack, blauwal_invoice("E2026000000018"), "in/second.pdf")
    assert waited == [] and second["status"] == "finalized"
    assert second["fields"]["invoice_number"]["value"] == "E2026000000018"
    assert second["supplier"]["supplierId"] == added.supplier_id


def test_a_review_without_the_tick_registers_nobody(stack: Stack, shipped_rules: None) -> None:
    paper = blauwal_invoice("E2026000000017")
    out, _, ran = run_reviewed(stack, paper, "in/no-tick.pdf", [APPROVE])
    assert out["status"] == "finalized" and "supplier" not in out
    names = {op.name for op in ran.get_all_operations()}
    assert "register supplier" not in names and registry().all() == []


def test_enrol_keeps_the_first_holder_of_an_id_and_is_safe_to_run_twice(
    stack: Stack, shipped_rules: None
) -> None:
    from docflow.extract.base import PageInput
    from docflow.extract.rules import layout_of
    from docflow.pdf import open_pdf
    from docflow.readers.textlayer import TextLayerReader

    with open_pdf(blauwal_invoice("E2026000000017")) as pdf:
        page = TextLayerReader().read(pdf, 1)
    layouts = [layout_of(PageInput(1, page.text, "textlayer", 100.0, words=page.words))]
    assert issuer_ids(layouts, "Blauwal Hafenlogistik GmbH") == {
        "vat": [BLAUWAL_VAT],
        "iban": [BLAUWAL_IBAN.replace(" ", "")],
    }
    once = enrol(registry(), layouts, "Blauwal Hafenlogistik GmbH", "EUR")
    again = enrol(registry(), layouts, "Blauwal Hafenlogistik GmbH", "EUR")
    assert once == again and once.shown is not None
    assert [s.supplier_id for s in registry().all()] == [once.shown["supplierId"]]
    taken = enrol(registry(), layouts, "Someone Else AG", "EUR")
    assert taken.shown is None and "belongs to supplier" in taken.refused


def test_the_page_offers_it_and_the_desk_takes_it_only_where_offered(
    stack: Stack, shipped_rules: None
) -> None:
    """The fields review page of an unknown issuer offers the checkbox with the ids found; the
    page of a document with nothing to offer has none, and a POST that asks anyway is refused
    and decides nothing."""
    from urllib.parse import urlencode

    from docflow.local.tools.pdfgen import make_pdf
    from tests.support.live_stack import LEGAL_ONLY
    from tests.support.review_desk import call, open_desk

    form = {"content-type": "application/x-www-form-urlencoded"}
    ask = urlencode({"decision": "approve", "addSupplier": "yes"})
    with open_desk(stack) as desk:
        invoice = stack.upload("in/offer.pdf", blauwal_invoice("E2026000000017"))
        arn = desk.start(invoice)
        (token,) = desk.links(invoice)
        page = call("GET", f"/review/{token}")["body"]
        assert 'name="addSupplier"' in page and f"VAT {BLAUWAL_VAT}" in page
        assert BLAUWAL_IBAN.replace(" ", "") not in page  # the IBAN is offered masked
        assert call("POST", f"/review/{token}", ask, **form)["statusCode"] == 200
        assert desk.result(arn)["supplier"]["by"] == "review"

        contract = stack.upload("in/contract.pdf", make_pdf([LEGAL_ONLY]))
        desk.start(contract)
        (token,) = desk.links(contract)
        assert 'name="addSupplier"' not in call("GET", f"/review/{token}")["body"]
        refused = call("POST", f"/review/{token}", ask, **form)
        assert refused["statusCode"] == 400 and "no supplier to add" in refused["body"]
        assert call("GET", f"/review/{token}")["statusCode"] == 200  # the link still works
