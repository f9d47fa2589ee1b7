"""Issue 56: a hybrid PDF carrying a second invoice XML (the attacker's account in it), or
any XML besides the one read, is held and says so. Through the real handler (durable testing
runner, moto, the shipped rules), for a registered supplier whose own account the read XML
names, so that nothing else holds it."""

from __future__ import annotations

import pytest

from docflow.pipeline.extract_einvoice import OTHER_XML
from tests.einvoice.payees import (
    ATTACKER_IBAN,
    CII_IBAN,
    attackers_xml,
    cii_hybrid,
    facturx_xml,
    register,
    with_attachments,
)
from tests.einvoice.runs import first_stop
from tests.support.aws import Stack


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("zugferd-invoice.xml", attackers_xml(), "carries 2 invoice XMLs"),
        ("rechnung.dat", attackers_xml(), "carries 2 invoice XMLs"),  # named otherwise
        ("export.xml", b"<?xml version='1.0'?><catalog><book/></catalog>", "carries XML"),
    ],
    ids=["second-invoice-xml", "second-invoice-xml-not-named-xml", "other-xml"],
)
def test_a_hybrid_carrying_another_xml_waits_and_says_so(
    stack: Stack, shipped_rules: None, name: str, content: bytes, said: str
) -> None:
    register("cii")
    data = with_attachments(cii_hybrid(facturx_xml()), {name: content})
    stop = first_stop(stack, f"in/two-{name}.pdf", data)

    assert stop.stage == "fields", stop.out
    (check,) = stop.checks(OTHER_XML)
    assert said in check["message"] and repr(name) in check["message"]
    assert "factur-x.xml" in check["message"]  # the one read
    # The XML read is the supplier's own: its bank details pass, only the other XML holds.
    assert stop.out["bank"]["verdict"] == "registered"
    assert stop.out["einvoice"]["source"] == "hybrid"
    assert ATTACKER_IBAN not in str(stop.out) and CII_IBAN not in str(stop.out)
