"""Issue 56: every payee account (BT-84) an e-invoice names is a payee, in whatever form the
XML gives it. Through the real handler (durable testing runner, moto, the shipped rules): a
registered supplier's invoice, its registered IBAN first, one more account in a form the
reader used to drop (a ProprietaryID, a hyphenated IBANID, a national account, a second
PaymentMeans), as XML alone and as a hybrid PDF: it waits at `bank-details`, the extra
account shown masked and unregistered. The registered IBAN alone goes through."""

from __future__ import annotations

import json

import pytest

from docflow.suppliers.bank import UNREGISTERED
from tests.einvoice.payees import (
    ATTACKER_IBAN,
    CII_FORMS,
    NATIONAL,
    UBL_FORMS,
    cii_hybrid,
    cii_with,
    cii_without_account,
    facturx_xml,
    register,
    ubl_hybrid,
    ubl_with,
    ubl_with_one,
)
from tests.einvoice.runs import first_stop
from tests.support.aws import Stack

CASES = [("cii", form) for form in CII_FORMS] + [("ubl", form) for form in UBL_FORMS]
# How the extra account shows, masked as every account is: country (or first two) and tail.
SHOWN = {
    "proprietary-id": "GB•••• 5432",
    "hyphenated": "GB•••• 5432",
    "national": "•••• 3000",  # no country of its own: its last four only
    "second-means": "GB•••• 5432",
}


def _variant(syntax: str, form: str, source: str) -> bytes:
    xml = cii_with(form) if syntax == "cii" else ubl_with(form)
    if source == "xml":
        return xml
    return cii_hybrid(xml) if syntax == "cii" else ubl_hybrid(xml)


@pytest.mark.parametrize("source", ["xml", "hybrid"])
@pytest.mark.parametrize(("syntax", "form"), CASES, ids=[f"{s}-{f}" for s, f in CASES])
def test_an_extra_payee_account_in_any_form_waits_at_bank_details(
    stack: Stack, shipped_rules: None, syntax: str, form: str, source: str
) -> None:
    register(syntax)
    data = _variant(syntax, form, source)
    stop = first_stop(stack, f"in/{syntax}-{form}.{'xml' if source == 'xml' else 'pdf'}", data)

    assert stop.stage is not None, stop.out
    assert "bank-details" in stop.route, stop.route
    bank = stop.out["bank"]
    assert bank["verdict"] == UNREGISTERED and bank["supplierId"] == "seller"
    printed = {p["iban"]: p["registered"] for p in bank["printed"]}
    assert printed[SHOWN[form]] is False
    assert list(printed.values()).count(True) == 1  # the registered IBAN, first
    assert "registered" in bank["message"] or "not registered" in bank["message"]
    # Masked wherever the run carries it: the checkpointed result and the read model.
    for whole in (ATTACKER_IBAN, NATIONAL):
        assert whole not in json.dumps(stop.out) and whole not in json.dumps(stop.state)


@pytest.mark.parametrize("source", ["xml", "hybrid"])
def test_the_registered_iban_alone_goes_through(
    stack: Stack, shipped_rules: None, source: str
) -> None:
    register("cii")
    xml = facturx_xml()
    data = xml if source == "xml" else cii_hybrid(xml)
    stop = first_stop(stack, f"in/registered.{source}", data)
    assert stop.stage is None and stop.out["status"] == "finalized", stop.out
    assert stop.out["bank"]["verdict"] == "registered"


def test_a_hybrid_whose_page_prints_no_account_while_its_xml_pays_one_waits(
    stack: Stack, shipped_rules: None
) -> None:
    """The page leaves the account out (a person pays nothing from it), the XML names one: a
    payee account on one side only is a mismatch, never 'nothing to compare'."""
    register("ubl")
    stop = first_stop(stack, "in/no-account-printed.pdf", ubl_hybrid(ubl_with_one(), iban=None))
    assert stop.stage == "fields", stop.out
    (check,) = [c for c in stop.checks("page-mismatch") if c["field"] == "iban"]
    assert (check["xml"], check["page"]) == ("DE•••• 7890", "none")


def test_a_hybrid_whose_xml_names_no_account_while_its_page_prints_one_waits(
    stack: Stack, shipped_rules: None
) -> None:
    """The reverse: the XML pays in cash (no BT-84), the page asks for a transfer."""
    register("cii")
    stop = first_stop(stack, "in/no-account-in-xml.pdf", cii_hybrid(cii_without_account()))
    assert stop.stage == "fields", stop.out
    (check,) = [c for c in stop.checks("page-mismatch") if c["field"] == "iban"]
    assert (check["xml"], check["page"]) == ("none", "FR•••• 4698")
    assert check["pageBox"]["page"] == 1
