"""Payee accounts (BT-84): every form the XML may give is read, written any way it is one
account, each one a payee of the bank-details check, and on a hybrid each must be on both
sides (issue 56). What an attacker varies (separators, spaces, case, which side names what)
is property-tested."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from docflow.einvoice import read
from docflow.einvoice.accounts import is_iban_shaped, normalize_account, payee_accounts
from docflow.einvoice.agree import PageValues, Printed, agree
from docflow.einvoice.fields import supplier_evidence
from docflow.einvoice.record import EInvoice
from docflow.suppliers.bank import HOLDS, REGISTERED, check_bank_details
from docflow.suppliers.data_evidence import PAYEE_DATA, Declared
from docflow.suppliers.ownership import ISSUER
from tests.einvoice.payees import (
    ATTACKER_IBAN,
    CII_FORMS,
    CII_IBAN,
    NATIONAL,
    UBL_FORMS,
    UBL_IBAN,
    cii_with,
    facturx_xml,
    ubl_with,
)

ACCOUNTS = (CII_IBAN, ATTACKER_IBAN, UBL_IBAN, NATIONAL, "NL91ABNA0417164300", "12AB34")
# What may stand between two characters of an account as written: ASCII separators, Unicode
# spaces (no-break, thin, narrow no-break, ideographic) and invisible characters (zero-width
# space and joiners, word joiner, byte order mark, soft hyphen).
SEPARATORS = [" ", "-", ".", "/", "\t", "\n", "\u00a0", "\u2009", "\u202f", "\u3000"]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]


@st.composite
def written(draw: st.DrawFn, account: str) -> str:
    """`account` as a sender may write it: separators anywhere, any case."""
    out = []
    for char in account:
        out.append(draw(st.text(st.sampled_from(SEPARATORS + INVISIBLE), max_size=2)))
        out.append(char.lower() if draw(st.booleans()) else char)
    out.append(draw(st.text(st.sampled_from(SEPARATORS + INVISIBLE), max_size=2)))
    return "".join(out)


@given(st.sampled_from(ACCOUNTS).flatmap(lambda a: st.tuples(st.just(a), written(a))))
def test_an_account_written_any_way_is_one_account(case: tuple[str, str]) -> None:
    account, as_written = case
    assert normalize_account(as_written) == account
    assert payee_accounts([as_written, account, None, " - "]) == (account,)


def test_iban_shaped_is_a_shape_not_a_checksum() -> None:
    assert is_iban_shaped(CII_IBAN) and is_iban_shaped("DE00123456780000000000")
    assert not is_iban_shaped(NATIONAL) and not is_iban_shaped("GB82-WEST")


def test_every_bt84_form_is_read_as_a_payee_account() -> None:
    for form in CII_FORMS:
        invoice = read(cii_with(form))
        extra = NATIONAL if form == "national" else ATTACKER_IBAN
        assert invoice.accounts == (CII_IBAN, extra), form
    for form in UBL_FORMS:
        invoice = read(ubl_with(form))
        extra = NATIONAL if form == "national" else ATTACKER_IBAN
        assert invoice.accounts == (UBL_IBAN, extra), form
    national = read(cii_with("national"))
    assert (national.ibans, national.other_accounts) == ((CII_IBAN,), (NATIONAL,))
    # The payer's account (BT-91, a direct debit's: `FRDEBIT` in the sample) is the buyer's.
    assert "FRDEBIT" not in read(facturx_xml()).accounts


def test_an_ibanid_and_a_proprietary_id_in_one_account_are_both_payees() -> None:
    xml = facturx_xml().replace(
        b"<ram:AccountName>",
        f"<ram:ProprietaryID>{NATIONAL}</ram:ProprietaryID><ram:AccountName>".encode(),
    )
    assert read(xml).accounts == (CII_IBAN, NATIONAL)


def test_older_records_without_other_accounts_read_back() -> None:
    value = read(cii_with("national")).to_json()
    assert value["other_accounts"] == [NATIONAL]
    older = {k: v for k, v in value.items() if k != "other_accounts"}
    assert EInvoice.from_json(older).accounts == (CII_IBAN,)


def test_the_supplier_evidence_names_every_account() -> None:
    evidence = supplier_evidence(read(cii_with("national")))
    assert evidence.accounts == (CII_IBAN, NATIONAL) and evidence.ibans == (CII_IBAN,)
    assert evidence.to_json()["accounts"] == [CII_IBAN, NATIONAL]


def _holder(_: str) -> None:
    return None


def test_every_declared_account_is_a_payee_of_the_bank_check() -> None:
    """A national account and an IBAN whose check digits fail are payees (registered
    nowhere: they hold); a page's misread IBAN is nobody's, the data's is no misread."""
    bad_checksum = "DE00123456780000000000"
    for extra in (NATIONAL, bad_checksum, ATTACKER_IBAN):
        declared = Declared.of(None, None, [CII_IBAN, extra])
        payees = declared.payees(declared.with_ibans([], registered=[CII_IBAN]))
        assert [(p.value, p.owner) for p in payees if p.value == extra] == [(extra, ISSUER)]
        check = check_bank_details("seller", [CII_IBAN], payees, _holder)
        assert check.holds and check.verdict in HOLDS, extra
        assert [p["registered"] for p in check.printed] == [True, False]
    only = Declared.of(None, None, [CII_IBAN])
    check = check_bank_details(
        "seller", [CII_IBAN], only.payees(only.with_ibans([], [CII_IBAN])), _holder
    )
    assert check.verdict == REGISTERED
    # Matching a supplier takes the checked IBANs only; the rest is payee evidence.
    assert Declared.of(None, None, [NATIONAL, bad_checksum]).ibans == ()
    assert [p.why for p in Declared.of(None, None, [NATIONAL]).payees([])] == [PAYEE_DATA]


@given(
    xml=st.sets(st.sampled_from(ACCOUNTS), max_size=3),
    page=st.sets(st.sampled_from(ACCOUNTS), max_size=3),
    data=st.data(),
)
def test_the_hybrid_check_holds_unless_both_sides_name_the_same_accounts(
    xml: set[str], page: set[str], data: st.DataObject
) -> None:
    invoice = replace(
        read(facturx_xml()),
        ibans=tuple(a for a in sorted(xml) if is_iban_shaped(a)),
        other_accounts=tuple(a for a in sorted(xml) if not is_iban_shaped(a)),
    )
    printed = tuple(Printed(data.draw(written(a)), 1, None) for a in sorted(page))
    checks = [
        c.to_json() for c in agree(invoice, PageValues(ibans=printed)).checks if c.field == "iban"
    ]
    assert bool(checks) == (xml != page)
    for whole in xml | page:
        assert all(whole not in str(c) for c in checks) or len(whole) <= 6
