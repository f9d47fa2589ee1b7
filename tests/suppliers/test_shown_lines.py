"""What a review page says about accounts (docflow/suppliers/shown.py, issue 57.6): each account
once, where it was read, and "registered" or "not registered for this supplier" only when there
is a supplier to ask. The bank check's own shapes (`BankCheck.shown()`) and the IBAN judgements
(`IbanFinding.shown()`), built by the real code, for any mix an invoice can print."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.document import DocumentSummary
from docflow.suppliers.bank import check_bank_details
from docflow.suppliers.ownership import ISSUER, OTHER, IbanFinding
from docflow.suppliers.shown import IN_DATA, supplier_lines

# Valid IBANs of four countries (mod 97 holds), each its own last four.
IBANS = [
    "DE89370400440532013000",
    "GB82WEST12345698765432",
    "NL91ABNA0417164300",
    "FR1420041010050500013M02606",
    "DE79000000001234567890",
]
# Another account ending as the first does (DE•••• 3000): valid, another bank and number.
ALIKE = "DE90100200300055553000"


def summary(
    supplier_id: str | None,
    registered: list[str],
    found: list[tuple[str, str, int]],
    holders: dict[str, str],
    source: str = "",
) -> DocumentSummary:
    """A summary as the extract step leaves it: the IBANs judged (value, owner, page), the
    bank check over them, and an e-invoice's source when there is one."""
    findings = [
        IbanFinding(v, True, owner, "footer" if owner == ISSUER else "debit-mandate", page)
        for v, owner, page in found
    ]
    check = check_bank_details(supplier_id, registered, findings, holders.get)
    out: dict[str, Any] = {
        "ibans": [f.shown() for f in findings],
        "bank": dict(check.shown()),
        "supplier": {"status": "unknown"}
        if supplier_id is None
        else {"certain": True, "name": "Blauwal", "by": "vat", "key": "DE812345673"},
    }
    if source:
        out["einvoice"] = {"source": source}
    return DocumentSummary.from_json(out)


def masked(iban: str) -> str:
    return f"{iban[:2]}•••• {iban[-4:]}"


def test_an_xml_invoice_of_no_registered_supplier_names_its_account_once_and_no_page() -> None:
    said = supplier_lines(summary(None, [], [(IBANS[4], ISSUER, 0)], {}, source="xml"))
    text = "\n".join(said)
    assert text.count("DE•••• 7890") == 1, said
    assert "not registered for this supplier" not in text and "printed" not in text
    assert "page" not in text


def test_a_page_of_no_registered_supplier_says_nothing_is_registered_for_nobody() -> None:
    said = supplier_lines(summary(None, [], [(IBANS[1], ISSUER, 1)], {}))
    assert "\n".join(said).count("GB•••• 5432") == 1, said
    assert not any("registered for this supplier" in line for line in said)


def test_an_unregistered_payee_beside_the_registered_one_is_compared() -> None:
    said = supplier_lines(summary("blauwal", [IBANS[0]], [(IBANS[1], ISSUER, 1)], {}))
    assert "Pay to (printed): GB•••• 5432, not registered for this supplier, on page 1." in said
    assert any(line.startswith("Registered accounts: DE•••• 3000") for line in said)
    assert "\n".join(said).count("GB•••• 5432") == 1


def test_an_account_masked_as_the_registered_one_is_not_passed_off_as_it() -> None:
    """The attacker's account ends as the supplier's does: both are said, and that they differ."""
    said = supplier_lines(summary("blauwal", [IBANS[0]], [(ALIKE, ISSUER, 1)], {}))
    text = "\n".join(said)
    assert "Pay to (printed): DE•••• 3000, not registered for this supplier, on page 1." in said
    assert "Registered accounts: DE•••• 3000" in text
    assert "is not that account: compare the whole account in the original" in text


def test_an_ibans_page_is_said_and_a_declared_one_is_in_the_data() -> None:
    said = supplier_lines(summary("s", [], [(IBANS[2], OTHER, 2), (IBANS[3], OTHER, 0)], {}))
    assert f"IBAN {masked(IBANS[2])} on page 2: not the issuer's" in "\n".join(said)
    assert f"IBAN {masked(IBANS[3])} {IN_DATA}: not the issuer's" in "\n".join(said)


@settings(max_examples=150, deadline=None)
@given(
    supplier=st.sampled_from([None, "blauwal"]),
    registered=st.lists(st.sampled_from(IBANS), unique=True, max_size=3),
    found=st.lists(
        st.tuples(st.sampled_from(IBANS), st.sampled_from([ISSUER, OTHER]), st.integers(0, 3)),
        unique_by=lambda f: f[0],
        max_size=4,
    ),
    held=st.sets(st.sampled_from(IBANS), max_size=2),
    source=st.sampled_from(["", "xml", "hybrid"]),
)
def test_each_account_is_said_once_and_registered_only_for_a_supplier(
    supplier: str | None,
    registered: list[str],
    found: list[tuple[str, str, int]],
    held: set[str],
    source: str,
) -> None:
    holders = {iban: "other-supplier" for iban in held if iban not in registered}
    said = supplier_lines(summary(supplier, registered if supplier else [], found, holders, source))
    text = "\n".join(said)
    # Once, but for a registered account the page also prints as someone else's (a mandate's):
    # two facts, each said.
    twice = {v for v, owner, _ in found if owner == OTHER and supplier and v in registered}
    for iban in IBANS:
        assert text.count(masked(iban)) <= (2 if iban in twice else 1), said
    for value, _, _ in found:  # every account the page holds is said
        assert masked(value) in text, said
    if supplier is None:
        assert "for this supplier" not in text
    if source == "xml":
        assert "(printed)" not in text
