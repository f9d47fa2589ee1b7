""" "Add this supplier" (issue 28 part 2, made four-eyed by issue 43): a fields reviewer of an
invoice whose issuer the registry does not know proposes it from the page, with the checked ids
the document prints; nothing is registered until an operator other than the proposer approves
the proposal, and then the supplier's invoices are matched by its ids, and learned from.
Through the real handler (durable testing runner, moto, the shipped rules), the CLI and the
desk."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from docflow.cli import main
from docflow.document import DocumentSummary, Field
from docflow.local.services.dashboard import proposals_section
from docflow.settings import load_settings
from docflow.suppliers import proposals
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.enrol import issuer_ids
from docflow.suppliers.layouts import LayoutStore
from docflow.suppliers.shown import supplier_offer
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, OTHER_VAT, blauwal_invoice, paper
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry, run_reviewed

APPROVE = {"approved": True, "reviewer": "ap@example.com"}
EVIL_IBAN = "GB33 BUKB 2020 1555 5555 55"
# Who the CLI runs as against moto: the principal its STS names for the tests' credentials.
OPERATOR = "arn:aws:sts::123456789012:user/moto"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    capsys.readouterr()  # what the runs printed (their metrics) is not the command's
    code = main(["suppliers", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def test_a_proposal_registers_nothing_until_another_person_approves_it(
    stack: Stack, use_rules: Callable[..., None], capsys: pytest.CaptureFixture[str]
) -> None:
    use_rules(min_confirmations=1, rate=0.0)  # this test is about proposals
    # One review trusts the profile and nothing is audited here (tests/suppliers/test_learning
    # holds the controls); this is about what the review registers.
    use_rules(min_confirmations=1, rate=0.0)
    number = "E2026000000017"
    answer = {**APPROVE, "corrections": {"invoice_number": number}, "addSupplier": True}
    first, waited, ran = run_reviewed(stack, blauwal_invoice(number), "in/first.pdf", [answer])
    # The page offered it: the issuer's checked VAT id and its IBAN, masked.
    offered = supplier_offer(
        DocumentSummary.from_json({**waited[0], "fields": waited[0].get("fields") or {}})
    )
    assert f"VAT {BLAUWAL_VAT}" in offered and any(o.startswith("IBAN DE") for o in offered)
    assert first["status"] == "finalized" and first["supplier"] == {"status": "unknown"}
    assert ran.get_step("propose supplier") is not None
    # No supplier to pay yet; reading is the layout's, registered or not (issue 59).
    assert ran.get_step("learn supplier profile") is not None
    (layout,) = LayoutStore(load_settings().supplier_table).all()
    assert layout.supplier_id == "" and "invoice_number" in layout.profile["fields"]
    proposed = first["supplierProposed"]
    assert proposed["status"] == "pending" and proposed["name"] == "Blauwal Hafenlogistik GmbH"
    assert registry().all() == []  # the review wrote no supplier

    code, listed = cli(capsys, "proposals")
    assert code == 0 and isinstance(listed, list)
    (shown,) = listed
    assert shown["proposer"] == "ap@example.com" and shown["documentId"] == first["documentId"]
    assert shown["ids"] == {"vat": [BLAUWAL_VAT], "iban": ["DE•••• 3000"]}  # masked

    pid = proposed["proposalId"]
    board = proposals_section()  # the operators' dashboard lists it, the IBAN masked
    assert pid in board and "DE•••• 3000" in board and BLAUWAL_IBAN.replace(" ", "") not in board
    # The proposer cannot approve it, whatever the spelling (tests/suppliers/test_four_eyes.py
    # has the others: [people], --by, STS principals).
    with pytest.raises(proposals.ProposalRefused, match="another person must approve"):
        proposals.approve(registry(), pid, "AP@example.com")
    assert registry().all() == []
    code, done = cli(capsys, "approve", pid)  # as the principal moto's STS names
    assert code == 0 and isinstance(done, dict) and done["by"] == OPERATOR
    added = registry().get(done["supplierId"])
    assert added is not None and added.name == "Blauwal Hafenlogistik GmbH"
    assert added.ids == {"vat": (BLAUWAL_VAT,), "iban": (BLAUWAL_IBAN.replace(" ", ""),)}
    code, again = cli(capsys, "approve", pid)
    assert code == 2 and "approved" in str(again)
    assert "No supplier proposal is waiting" in proposals_section()

    code, record = cli(capsys, "show", added.supplier_id)
    assert isinstance(record, dict)
    (entry,) = record["history"]
    assert entry["what"] == "approved" and entry["by"] == OPERATOR
    assert "proposed by ap@example.com" in entry["detail"]
    assert entry["documentId"] == first["documentId"] and entry["proposalId"] == pid

    # Registered: the next invoice is matched by its VAT id, for paying, and read on the layout
    # the first review taught (trusted after one review here); its layout is linked to the
    # supplier the checked id names, in the layout's own history.
    second, waited, _ = run_reviewed(stack, blauwal_invoice("E2026000000018"), "in/2.pdf")
    assert waited == [] and second["status"] == "finalized"
    assert second["supplier"]["supplierId"] == added.supplier_id
    assert second["supplier"]["certain"] is True
    assert second["fields"]["invoice_number"]["value"] == "E2026000000018"
    assert second["fields"]["invoice_number"]["source"] == "profile"
    assert [e.what for e in registry().history_of(added.supplier_id)] == ["approved"]
    assert [e.what for e in registry().history_of(layout.layout_id)] == ["profile"]


def evil_invoice(name: str) -> bytes:
    """An unknown issuer with a checked VAT id of its own and the attacker's IBAN."""
    head = [name, "Dockside 4, London", f"VAT: {OTHER_VAT}", "", "INVOICE"]
    body = [
        "Invoice date: 04.03.2026",
        "Bill to: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
        "",
        "Total: 1.190,00 EUR",
    ]
    return paper([*head, *body], [f"{name} - IBAN {EVIL_IBAN}"])


def test_a_typed_vendor_name_is_never_the_proposed_one(
    stack: Stack, shipped_rules: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: "Evil Trading Ltd"'s reviewer types the registered supplier's name and ticks
    the box. The proposal carries the name the page prints and, beside it, the reviewer's:
    that one passes for a registered supplier, so the proposal is a conflict nobody can
    approve (issue 59: both names are checked), and nothing of Blauwal changes."""
    import_suppliers(registry(), f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    typed = {
        **APPROVE,
        "corrections": {"vendor_name": "Blauwal Hafenlogistik GmbH"},
        "addSupplier": True,
    }
    out, _, _ = run_reviewed(stack, evil_invoice("Evil Trading Ltd"), "in/evil.pdf", [typed])
    assert out["fields"]["vendor_name"]["value"] == "Blauwal Hafenlogistik GmbH"
    proposed = out["supplierProposed"]
    assert proposed["name"] == "Evil Trading Ltd"
    assert proposed["reviewerName"] == "Blauwal Hafenlogistik GmbH"
    assert proposed["status"] == "conflict" and "the reviewer's name" in proposed["conflict"]
    code, refused = cli(capsys, "approve", proposed["proposalId"], "--name", "printed")
    assert code == 2 and "conflict" in str(refused)
    blauwal = registry().get("blauwal")
    assert blauwal is not None and "iban" not in blauwal.ids  # never merged into
    assert [e.what for e in registry().history_of("blauwal")] == ["imported"]


def test_a_proposal_naming_a_registered_supplier_is_a_conflict(
    stack: Stack, shipped_rules: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page itself prints the registered supplier's name (with another VAT id and the
    attacker's IBAN): the proposal is a conflict naming Blauwal, and cannot be approved."""
    import_suppliers(registry(), f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    tick = {**APPROVE, "addSupplier": True}
    out, waited, _ = run_reviewed(
        stack, evil_invoice("Blauwal Hafenlogistik GmbH"), "in/lookalike.pdf", [tick, APPROVE]
    )
    # Matched by name, its IBAN is not Blauwal's: treasury sees it too (bank-details).
    assert [w["stageName"] for w in waited] == ["fields", "bank-details"]
    proposed = out["supplierProposed"]
    assert proposed["status"] == "conflict"
    assert "matches registered supplier 'blauwal'" in proposed["conflict"]
    pid = proposed["proposalId"]
    code, refused = cli(capsys, "approve", pid)
    assert code == 2 and "conflict" in str(refused) and "by hand" in str(refused)
    blauwal = registry().get("blauwal")
    assert blauwal is not None and blauwal.ids == {"vat": (BLAUWAL_VAT,)}
    code, rejected = cli(capsys, "reject", pid, "--reason", "fraud")
    assert code == 0 and isinstance(rejected, dict) and rejected["status"] == "rejected"
    assert rejected["by"] == OPERATOR
    (after,) = proposals.listed(registry())
    assert after.status == "rejected" and after.reason == "fraud"


def test_a_lookalike_of_a_registered_name_is_a_conflict_and_its_invoice_waits_for_treasury(
    stack: Stack, shipped_rules: None
) -> None:
    """Issue 56: `BIauwaI GmbH` (capital I's for small l's), with a VAT id of its own and the
    attacker's IBAN, read as no registered supplier, so its proposal was pending and, approved
    by a second person, its next invoice paid the attacker unreviewed under a name that reads
    as Blauwal's. Compared by their confusables skeletons the names are one: the invoice is
    matched to Blauwal by name and waits at bank-details, and the proposal is a conflict."""
    row = f"blauwal,Blauwal Hafenlogistik GmbH,Blauwal,{BLAUWAL_VAT}"
    import_suppliers(registry(), f"id,name,aliases,vat\n{row}\n")
    tick = {**APPROVE, "addSupplier": True}
    out, waited, _ = run_reviewed(stack, evil_invoice("BIauwaI GmbH"), "in/bi.pdf", [tick, APPROVE])
    assert [w["stageName"] for w in waited] == ["fields", "bank-details"]
    assert out["supplier"]["supplierId"] == "blauwal" and out["supplier"]["by"] == "name"
    proposed = out["supplierProposed"]
    assert proposed["status"] == "conflict" and proposed["name"] == "BIauwaI GmbH"
    assert "matches registered supplier 'blauwal'" in proposed["conflict"]


def test_a_review_without_the_tick_proposes_nothing(stack: Stack, shipped_rules: None) -> None:
    paper_ = blauwal_invoice("E2026000000017")
    out, _, ran = run_reviewed(stack, paper_, "in/no-tick.pdf", [APPROVE])
    assert out["status"] == "finalized" and "supplierProposed" not in out
    names = {op.name for op in ran.get_all_operations()}
    assert "propose supplier" not in names and proposals.listed(registry()) == []


def test_the_proposal_is_filed_once_per_document_version(stack: Stack, shipped_rules: None) -> None:
    """The step running again (a replay after a crash) finds its proposal filed: one proposal,
    the same answer; an id another supplier holds makes it a conflict, never a moved claim."""
    from docflow.extract.base import PageInput
    from docflow.extract.rules_engine.engine import layout_of
    from docflow.pdf import open_pdf
    from docflow.readers.textlayer import TextLayerReader
    from docflow.suppliers.enrol import propose_from_page

    with open_pdf(blauwal_invoice("E2026000000017")) as pdf:
        page = TextLayerReader().read(pdf, 1)
    layouts = [layout_of(PageInput(1, page.text, "textlayer", 100.0, words=page.words))]
    assert issuer_ids(layouts, "Blauwal Hafenlogistik GmbH") == {
        "vat": [BLAUWAL_VAT],
        "iban": [BLAUWAL_IBAN.replace(" ", "")],
    }
    summary = {"vendor_name": Field("Blauwal Hafenlogistik GmbH")}
    once = propose_from_page(registry(), layouts, summary, ("d-1", "v-1"), "ap@example.com")
    again = propose_from_page(registry(), layouts, summary, ("d-1", "v-1"), "ap@example.com")
    assert once == again and once.shown is not None and once.shown["status"] == "pending"
    assert len(proposals.listed(registry())) == 1 and registry().all() == []
    import_suppliers(registry(), f"id,name,vat\nholder,Holder AG,{BLAUWAL_VAT}\n")
    other = {"vendor_name": Field("Someone Else AG")}
    taken = propose_from_page(registry(), layouts, other, ("d-2", "v-1"), "ap@example.com")
    assert taken.shown is not None and taken.shown["status"] == "conflict"
    assert f"vat:{BLAUWAL_VAT} belongs to supplier 'holder'" in taken.shown["conflict"]


def test_the_page_offers_it_and_the_desk_takes_it_only_where_offered(
    stack: Stack, shipped_rules: None
) -> None:
    """The fields review page of an unknown issuer offers the checkbox with the ids found; the
    page of a document with nothing to offer has none, and a POST that asks anyway is refused
    and decides nothing."""
    from urllib.parse import urlencode

    from tests.kit.pdfgen import make_pdf
    from tests.support.live_stack import LEGAL_ONLY
    from tests.support.review_desk import Desk, call, open_desk

    form = {"content-type": "application/x-www-form-urlencoded"}
    ask = urlencode({"decision": "approve", "addSupplier": "yes"})
    with open_desk(stack, Desk) as desk:
        invoice = stack.upload("in/offer.pdf", blauwal_invoice("E2026000000017"))
        arn = desk.start(invoice)
        (token,) = desk.links(invoice)
        page = call("GET", f"/review/{token}")["body"]
        assert 'name="addSupplier"' in page and f"VAT {BLAUWAL_VAT}" in page
        assert BLAUWAL_IBAN.replace(" ", "") not in page  # the IBAN is offered masked
        assert call("POST", f"/review/{token}", ask, **form)["statusCode"] == 200
        assert desk.result(arn)["supplierProposed"]["status"] == "pending"

        contract = stack.upload("in/contract.pdf", make_pdf([LEGAL_ONLY]))
        desk.start(contract)
        (token,) = desk.links(contract)
        assert 'name="addSupplier"' not in call("GET", f"/review/{token}")["body"]
        refused = call("POST", f"/review/{token}", ask, **form)
        assert refused["statusCode"] == 400 and "no supplier to add" in refused["body"]
        assert call("GET", f"/review/{token}")["statusCode"] == 200  # the link still works
