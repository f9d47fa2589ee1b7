"""Issue 59 item 4: a proposal carries the name the page prints and the name its reviewer
approved, and an operator approves one. Before, a contact person's printed name
("de Lattre Alexis", corrected to the issuer by the reviewer) became a registered supplier, and
a viewer's printed title was proposed as the supplier's name, the reviewer's correction
unused. Through the `propose supplier` step's own function and the CLI, on moto."""

from __future__ import annotations

import json

import pytest

from docflow.cli import main
from docflow.document.fields import fields_from_json
from docflow.extract.rules_engine.layout import from_text
from docflow.suppliers import proposals
from docflow.suppliers.enrol import propose_from_page
from tests.suppliers.papers import OTHER_VAT
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry

PAGE = f"""de Lattre Alexis
Atelier Nord SARL
TVA: {OTHER_VAT}
FACTURE F-2026-0007
Total TTC: 1 200,00 EUR"""
CONTACT, ISSUER = "de Lattre Alexis", "Atelier Nord SARL"


def _filed(corrected: bool) -> proposals.Proposal:
    vendor = {"value": ISSUER, "original": CONTACT, "correctedBy": "ap@example.com"}
    fields = {"vendor_name": vendor if corrected else {"value": CONTACT}}
    fields["currency"] = {"value": "EUR"}
    typed = fields_from_json(fields)
    source = ("d-delattre" + ("-c" if corrected else ""), "v-1")
    made = propose_from_page(registry(), [from_text(1, PAGE)], typed, source, "ap@example.com")
    assert made.shown is not None, made.refused
    found = proposals.get(registry(), str(made.shown["proposalId"]))
    assert found is not None
    return found


def test_a_proposal_names_what_the_page_prints_and_what_the_reviewer_approved(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    p = _filed(corrected=True)
    assert (p.name, p.reviewer_name) == (CONTACT, ISSUER)
    assert p.names == {"printed": CONTACT, "reviewer": ISSUER}
    # Two names and no choice: refused, both named.
    with pytest.raises(proposals.ProposalRefused, match="two names"):
        proposals.approve(registry(), p.proposal_id, "controller@example.com")
    assert main(["suppliers", "proposals", "--json"]) == 0
    (shown,) = json.loads(capsys.readouterr().out)
    assert (shown["name"], shown["reviewerName"]) == (CONTACT, ISSUER)
    code = main(["suppliers", "approve", p.proposal_id, "--json"])
    assert code == 2 and "two names" in json.loads(capsys.readouterr().out)["error"]
    # The operator chooses the reviewer's: the supplier is the issuer, never the person.
    supplier = proposals.approve(
        registry(), p.proposal_id, "controller@example.com", name=proposals.REVIEWER
    )
    assert supplier.name == ISSUER
    stored = registry().get(supplier.supplier_id)
    assert stored is not None and stored.name == ISSUER


def test_a_proposal_whose_name_nobody_corrected_has_one_name(stack: Stack) -> None:
    p = _filed(corrected=False)
    assert p.names == {"printed": CONTACT} and p.reviewer_name == ""
    with pytest.raises(proposals.ProposalRefused, match="no reviewer name"):
        proposals.approve(registry(), p.proposal_id, "controller@example.com", name="reviewer")
    supplier = proposals.approve(registry(), p.proposal_id, "controller@example.com")
    assert supplier.name == CONTACT
