"""Issue 43: bank details are checked, not learned; a checked id and the printed name must
agree. Through the real handler (durable testing runner, moto, the shipped rules), the review
page from the real callback API, and the pure check beside them.

An attacker's invoice prints a registered supplier's VAT id and name with another IBAN: it
waits at `bank-details` with both accounts shown, masked. The registered IBAN goes through."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

import callback_api.app as api
from docflow.readmodel.queries import ReadModel
from docflow.rules.model import DEFAULT_RULES
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from docflow.suppliers import history
from docflow.suppliers.bank import Asked, check_bank_details
from docflow.suppliers.model import Supplier
from docflow.suppliers.ownership import ISSUER, OTHER, IbanFinding
from orchestrator.app import handler
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice, paper
from tests.support.aws import Stack
from tests.support.review_desk import RunnerCallbacks, call, make_views, wait_until
from tests.support.reviewed_runs import registry, run_reviewed

ATTACKER_IBAN = "GB82 WEST 1234 5698 7654 32"
OTHER_SUPPLIERS_IBAN = "FR14 2004 1010 0505 0001 3M02 606"
KNOWN_LABEL = {"label": "Rechnungsnummer", "number": "RE-2026-0042"}
APPROVE = {"approved": True}


def compact(iban: str) -> str:
    return iban.replace(" ", "")


@pytest.fixture
def blauwal(stack: Stack, shipped_rules: None) -> Stack:
    """Blauwal registered with its VAT id and its IBAN; a second supplier holds another."""
    store = registry()
    supplier = Supplier.parse(
        {
            "supplierId": "blauwal",
            "name": "Blauwal Hafenlogistik GmbH",
            "ids": {"vat": [BLAUWAL_VAT], "iban": [compact(BLAUWAL_IBAN)]},
            "currency": "EUR",
        }
    )
    store.put(supplier, history.entry("blauwal", history.IMPORTED, "test"))
    other = {"iban": [compact(OTHER_SUPPLIERS_IBAN)]}
    seeadler = Supplier.parse({"supplierId": "seeadler", "name": "Seeadler SARL", "ids": other})
    store.put(seeadler, history.entry("seeadler", history.IMPORTED, "test"))
    return stack


def test_the_registered_iban_goes_through(blauwal: Stack) -> None:
    out, waited, _ = run_reviewed(blauwal, blauwal_invoice(**KNOWN_LABEL), "in/a.pdf")
    assert out["status"] == "finalized" and waited == [], out
    bank = out["bank"]
    assert bank["verdict"] == "registered", bank
    assert bank["printed"][0]["iban"] == "DE•••• 3000" and bank["printed"][0]["registered"]


def test_a_changed_iban_waits_at_bank_details_and_registers_nothing(blauwal: Stack) -> None:
    forged = blauwal_invoice(**KNOWN_LABEL, footer_iban=ATTACKER_IBAN)
    out, waited, _ = run_reviewed(blauwal, forged, "in/forged.pdf", [APPROVE])
    assert [w["stageName"] for w in waited] == ["bank-details"]
    assert out["status"] == "finalized"  # a person approved this one payment
    bank = out["bank"]
    assert bank["verdict"] == "unregistered"
    assert [p["iban"] for p in bank["printed"]] == ["GB•••• 5432"]
    assert [r["iban"] for r in bank["registered"]] == ["DE•••• 3000"]
    assert bank["registered"][0]["bank"] == "Commerzbank"  # schwifty knows the bank code
    assert ATTACKER_IBAN.replace(" ", "") not in str(out)  # masked everywhere it travels
    # Approving the stage registered nothing: the next forged invoice waits again.
    assert registry().get("blauwal").ids["iban"] == (compact(BLAUWAL_IBAN),)
    state = ReadModel(load_settings().table_name).show(out["documentId"])["state"]
    assert state["bank"]["verdict"] == "unregistered"


def test_the_name_with_an_attackers_iban_and_no_id_waits(blauwal: Stack) -> None:
    """No VAT id printed, the supplier's name and an unknown IBAN: matched by name only, the
    account is still not the supplier's."""
    lines = [
        "Blauwal Hafenlogistik GmbH",
        "Kaiweg 12, 20457 Hamburg",
        "RECHNUNG",
        "Rechnungsnummer: RE-2026-0043",
        "Rechnungsdatum: 04.03.2026",
        "Nettobetrag: 1.000,00 EUR",
        "MwSt. 19%: 190,00 EUR",
        "Gesamtbetrag: 1.190,00 EUR",
        f"Bitte überweisen Sie den Betrag per SEPA Überweisung auf IBAN {ATTACKER_IBAN}",
    ]
    out, waited, _ = run_reviewed(blauwal, paper(lines), "in/name-only.pdf", [APPROVE])
    assert [w["stageName"] for w in waited] == ["bank-details"]
    assert out["bank"]["verdict"] == "unregistered"


def test_an_iban_registered_for_another_supplier_waits(blauwal: Stack) -> None:
    forged = blauwal_invoice(**KNOWN_LABEL, footer_iban=OTHER_SUPPLIERS_IBAN)
    out, waited, _ = run_reviewed(blauwal, forged, "in/other.pdf", [APPROVE])
    assert [w["stageName"] for w in waited] == ["bank-details"]
    assert out["bank"]["verdict"] == "other-supplier"
    assert out["bank"]["printed"][0]["holder"] == "seeadler"


def test_two_issuers_printing_one_vat_id_are_not_one_supplier(blauwal: Stack) -> None:
    """A second issuer printing Blauwal's VAT id under its own name: the printed name stands,
    both names go to a person, and nothing of Blauwal's is read."""
    other = blauwal_invoice(**KNOWN_LABEL, name="Möwe Kühllogistik KG")
    out, waited, _ = run_reviewed(blauwal, other, "in/moewe.pdf", [APPROVE])
    assert waited[0]["stageName"] == "fields"
    assert out["fields"]["vendor_name"]["value"] == "Möwe Kühllogistik KG"
    assert out["fields"]["vendor_name"].get("source") != "registry"
    codes = {c["code"]: c["message"] for c in out["fieldChecks"]}
    assert "Möwe Kühllogistik KG" in codes["supplier-name-disagrees"]
    assert "Blauwal Hafenlogistik GmbH" in codes["supplier-name-disagrees"]
    assert out["supplier"]["certain"] is False


def test_an_unknown_supplier_says_so_and_holds_where_the_rules_say(
    stack: Stack, shipped_rules: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, waited, _ = run_reviewed(stack, blauwal_invoice(**KNOWN_LABEL), "in/u.pdf")
    assert waited == [] and out["supplier"] == {"status": "unknown"}
    assert out["bank"]["verdict"] == "unknown-supplier"

    rules = DEFAULT_RULES.read_text().replace('unknown_payee = "pass"', 'unknown_payee = "hold"')
    held = tmp_path / "rules.toml"
    held.write_text(rules)
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(held))
    load_settings.cache_clear()
    use_runtime(None)
    _, waited, _ = run_reviewed(stack, blauwal_invoice(**KNOWN_LABEL), "in/u2.pdf", [APPROVE])
    assert [w["stageName"] for w in waited] == ["bank-details"]


@pytest.fixture
def waiting_forgery(blauwal: Stack) -> Iterator[str]:
    """A forged invoice waiting at bank-details; the callback API serving its review link."""
    forged = blauwal_invoice(**KNOWN_LABEL, footer_iban=ATTACKER_IBAN)
    doc = blauwal.upload("in/forged.pdf", forged)
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        callbacks = RunnerCallbacks(runner)
        api.use_views(make_views(callbacks))
        use_runtime(build_runtime().with_(callbacks=callbacks))
        arn = runner.run_async(input=blauwal.event(doc), execution_timeout=120)
        runner.wait_for_callback(arn, name="review-0 create callback id", timeout=60)
        wait_until(lambda: bool(links_in(moto_sent_mail())))
        (link,) = links_in(moto_sent_mail())
        yield link.token
        api.use_views(None)
        use_runtime(None)


def test_the_bank_details_page_shows_both_accounts_masked(waiting_forgery: str) -> None:
    page = call("GET", f"/review/{waiting_forgery}")
    assert page["statusCode"] == 200
    body = page["body"]
    assert (
        "not the supplier&#39;s registered one" in body or "not the supplier's registered" in body
    )
    assert "Pay to (printed): GB•••• 5432" in body and "not registered for this supplier" in body
    assert "Registered accounts: DE•••• 3000 (Commerzbank, COBADEFFXXX)" in body
    assert compact(ATTACKER_IBAN) not in body and compact(BLAUWAL_IBAN) not in body


def test_the_check_judges_payees_only() -> None:
    """Someone else's IBAN (a debit mandate's) is no payee; a bad checksum is nobody's."""
    mine, theirs = compact(BLAUWAL_IBAN), compact(ATTACKER_IBAN)
    holder = {mine: "blauwal"}.get
    found = [IbanFinding(theirs, True, OTHER, "debit-mandate", 1)]
    assert check_bank_details("blauwal", [mine], found, holder).verdict == "no-payee"
    paid = [IbanFinding(mine, True, ISSUER, "registered", 1)]
    assert check_bank_details("blauwal", [mine], paid, holder).verdict == "registered"
    assert not check_bank_details("blauwal", [mine], paid, holder).holds
    changed = [*paid, IbanFinding(theirs, True, ISSUER, "footer", 1)]
    assert check_bank_details("blauwal", [mine], changed, holder).holds
    assert check_bank_details(None, [], paid, holder).verdict == "other-supplier"


def test_a_bill_worded_as_a_receipt_is_still_held_for_its_account(blauwal: Stack) -> None:
    """Issue 48 gave types without an issuer field (receipts, claims) a pass by the registry;
    one that prints an IBAN is checked whatever its type, so a known supplier's VAT id with an
    attacker's account, worded to be classified as a receipt, still waits for treasury."""
    worded = paper(
        [
            "Blauwal Hafenlogistik GmbH",
            f"USt-IdNr.: {BLAUWAL_VAT}",
            "",
            "QUITTUNG",
            "Kassenbon 4711 - Kassenbeleg",
            "Lagerung Februar                      1.000,00 EUR",
            "Summe: 1.190,00 EUR",
            "Quittung bitte aufbewahren",
        ],
        [f"Blauwal Hafenlogistik GmbH - IBAN {ATTACKER_IBAN}"],
    )
    out, waited, _ = run_reviewed(blauwal, worded, "in/quittung.pdf", [APPROVE] * 3)
    assert out["docType"] == "receipt", out["docType"]
    assert [w["stageName"] for w in waited] == ["privacy", "fields", "bank-details"]
    assert out["bank"]["verdict"] == "unregistered"
    assert out["status"] == "finalized"  # treasury approved this one payment


def test_the_check_fails_closed_on_what_it_cannot_read() -> None:
    """Issue 56: an account no check recognizes, an account asked for and not read, and a
    picture at the payment line OCR read nothing in each hold; `no-payee` passes only a page
    that asks for no account, or says it is paid."""
    mine, theirs = compact(BLAUWAL_IBAN), compact(ATTACKER_IBAN)
    holder = {mine: "blauwal"}.get
    paid = [IbanFinding(mine, True, ISSUER, "registered", 1)]
    misprint = IbanFinding(theirs[:-1] + "3", False, OTHER, "bad-checksum", 1)
    odd = IbanFinding("123456789", False, OTHER, "unrecognized", 1, kind="other")
    for found in ([misprint], [odd], [*paid, misprint]):
        check = check_bank_details("blauwal", [mine], found, holder)
        assert (check.verdict, check.holds) == ("unrecognized", True), found
    asked = Asked(instructions=1)
    assert check_bank_details("blauwal", [mine], [], holder, asked).verdict == "unreadable"
    assert check_bank_details("blauwal", [mine], [], holder, Asked(1, settled=True)).verdict == (
        "no-payee"
    )
    assert check_bank_details("blauwal", [mine], [], holder, Asked()).verdict == "no-payee"
    # A picture at the payment line that cannot be read holds beside a registered account.
    picture = Asked(instructions=1, unreadable=1)
    assert check_bank_details("blauwal", [mine], paid, holder, picture).verdict == "unreadable"
    # A mandate's account is no payee, and the pages asked for none.
    debit = [IbanFinding(theirs, True, OTHER, "debit-mandate", 1)]
    assert check_bank_details("blauwal", [mine], debit, holder, Asked(0, True)).verdict == (
        "no-payee"
    )
    # An account no words tie to anyone is still a possible payee.
    loose = [IbanFinding(theirs, True, OTHER, "no-issuer-evidence", 1)]
    assert check_bank_details("blauwal", [mine], loose, holder).verdict == "unregistered"
    # What is shown of an unrecognized account is masked like any other.
    shown = check_bank_details("blauwal", [mine], [odd], holder).shown()
    assert shown["printed"] == [
        {"iban": "•••• 6789", "kind": "other", "valid": False, "registered": False}
    ]
    assert "123456789" not in str(shown)


def test_holds_is_the_one_decision_and_knows_unknown_payee() -> None:
    paid = [IbanFinding(compact(ATTACKER_IBAN), True, ISSUER, "footer", 1)]
    unknown = check_bank_details(None, [], paid, lambda _iban: None)
    assert unknown.verdict == "unknown-supplier" and not unknown.holds
    held = check_bank_details(None, [], paid, lambda _iban: None, hold_unknown=True)
    assert held.verdict == "unknown-supplier" and held.holds
    # A national account matches the registered IBAN it is (a UK sort code and account
    # against a GB IBAN that ends in them).
    uk = IbanFinding("60161331926819", True, ISSUER, "pay-to", 1, kind="uk")
    check = check_bank_details("x", ["GB29NWBK60161331926819"], [uk], lambda _iban: None)
    assert check.verdict == "registered" and not check.holds
