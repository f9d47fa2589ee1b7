"""Whose IBAN it is, rule by rule (docflow/suppliers/ownership.py), on pages laid out from text:
each reason the module names decides where it should, and nothing else does."""

from __future__ import annotations

from docflow.extract.rules_engine.layout import from_text
from docflow.suppliers.ownership import judge_accounts, judge_ibans
from tests.suppliers.papers import BAD_IBAN, BLAUWAL_IBAN, BLAUWAL_VAT, CUSTOMER_IBAN

FILLER = [f"Position {n}: storage and handling, as agreed" for n in range(1, 19)]


def judged(middle: list[str], vendor: str | None = None, registered: tuple[str, ...] = ()):
    """One page of twenty-odd lines with `middle` at its middle (not the issuer's top third,
    not the footer), so only the rule under test can claim the IBAN."""
    lines = [*FILLER[:9], *middle, *FILLER[9:]]
    page = from_text(1, "\n".join(lines))
    return [(f.owner, f.why) for f in judge_ibans([page], vendor, registered)]


def compact(iban: str) -> str:
    return iban.replace(" ", "")


def test_an_iban_with_no_evidence_in_the_middle_of_the_page_is_someone_elses() -> None:
    assert judged([f"Refunds go to IBAN {CUSTOMER_IBAN}"]) == [("other", "no-issuer-evidence")]


def test_the_matched_suppliers_registered_iban_is_the_issuers_wherever_it_is() -> None:
    found = judged([f"IBAN {BLAUWAL_IBAN}"], registered=(compact(BLAUWAL_IBAN),))
    assert found == [("issuer", "registered")]


def test_an_iban_beside_a_checked_tax_id_is_the_issuers() -> None:
    found = judged([f"USt-IdNr.: {BLAUWAL_VAT}", f"IBAN {BLAUWAL_IBAN}"])
    assert found == [("issuer", "beside-issuer-id")]


def test_an_iban_beside_the_vendors_name_is_the_issuers() -> None:
    found = judged(
        ["Blauwal Hafenlogistik GmbH", f"IBAN {BLAUWAL_IBAN}"], vendor="Blauwal Hafenlogistik GmbH"
    )
    assert found == [("issuer", "beside-issuer-name")]


def test_the_customer_block_and_a_debit_mandate_are_someone_elses_even_beside_the_issuer() -> None:
    billed = judged(["Bill to: Nordlicht Handel AG", f"IBAN {CUSTOMER_IBAN}"])
    assert billed == [("other", "customer-block")]
    # A mandate wins over the registry: the account to debit is the customer's.
    mandate = judged(
        [f"USt-IdNr.: {BLAUWAL_VAT}", "Please debit my account:", f"IBAN {BLAUWAL_IBAN}"],
        registered=(compact(BLAUWAL_IBAN),),
    )
    assert mandate == [("other", "debit-mandate")]


def test_an_iban_that_fails_its_checksum_is_nobodys() -> None:
    page = from_text(1, "\n".join([*FILLER[:9], f"USt-IdNr.: {BLAUWAL_VAT}", f"IBAN {BAD_IBAN}"]))
    (finding,) = judge_ibans([page], None)
    assert (finding.why, finding.shown()["owner"], finding.shown()["valid"]) == (
        "bad-checksum",
        "other",
        False,
    )
    assert "3704" not in finding.shown()["iban"]  # only the masked form leaves the module


def test_the_top_of_the_first_page_and_the_foot_of_any_page_are_the_issuers() -> None:
    top = from_text(1, "\n".join([f"IBAN {BLAUWAL_IBAN}", *FILLER]))
    foot = from_text(2, "\n".join([*FILLER, f"IBAN {BLAUWAL_IBAN}"]))
    top_of_two = from_text(2, "\n".join([f"IBAN {BLAUWAL_IBAN}", *FILLER]))
    assert [(f.owner, f.why) for f in judge_ibans([top, foot, top_of_two], None)] == [
        ("issuer", "issuer-block"),
        ("issuer", "footer"),
        ("other", "no-issuer-evidence"),
    ]


def test_an_iban_the_reader_is_asked_to_transfer_to_is_the_issuers() -> None:
    # A real ZUGFeRD invoice (mustangproject's EXTENDED_Fremdwaehrung): the payee account under
    # the payment terms, in the page's middle, held by the issuer's factor.
    found = judged(
        [
            "Zahlungstyp (codiert): 58 - per SEPA ÜBERWEISUNG",
            "Kontoname : Global Supplies Financial Services",
            f"IBAN : {BLAUWAL_IBAN}",
        ]
    )
    assert found == [("issuer", "pay-to")]
    assert judged([f"Please transfer the amount to IBAN {BLAUWAL_IBAN}"]) == [("issuer", "pay-to")]
    assert judged(["Payable by bank transfer to:", f"IBAN {BLAUWAL_IBAN}"]) == [
        ("issuer", "pay-to")
    ]


def test_a_transfer_to_the_readers_own_account_is_someone_elses() -> None:
    # A credit note's refund: the money goes to the customer.
    found = judged(["Wir überweisen den Betrag auf Ihr Konto", f"IBAN {CUSTOMER_IBAN}"])
    assert found == [("other", "reader-account")]
    found = judged([f"We will transfer the refund to your account {CUSTOMER_IBAN}"])
    assert found == [("other", "reader-account")]


def test_a_debit_mandate_still_wins_over_a_transfer() -> None:
    found = judged(
        [
            "Payment by bank transfer or direct debit:",
            "Please debit my account:",
            f"IBAN {CUSTOMER_IBAN}",
        ]
    )
    assert found == [("other", "debit-mandate")]


def test_an_instruction_over_another_iban_is_that_ibans() -> None:
    found = judged(
        [
            "Please transfer to our account:",
            f"IBAN {BLAUWAL_IBAN}",
            f"Refund account {CUSTOMER_IBAN}",
        ]
    )
    assert found == [("issuer", "pay-to"), ("other", "no-issuer-evidence")]


def test_a_customer_block_ends_where_its_lines_end_not_at_a_blank_line() -> None:
    """Issue 44: the payment line under the totals, no blank line after `Bill to:`: the
    totals' label ends the customer's block, so the issuer's registered IBAN is its own."""
    lines = [
        "Bill to: Nordlicht Handel AG",
        "Ostweg 3, 10115 Berlin",
        "Total: 1,190.00 EUR",
        f"IBAN {BLAUWAL_IBAN}",
    ]
    assert judged(lines, registered=(compact(BLAUWAL_IBAN),)) == [("issuer", "registered")]
    assert judged(lines) != [("other", "customer-block")]
    # The customer's own lines stay the customer's.
    assert judged(["Bill to: Nordlicht Handel AG", f"IBAN {CUSTOMER_IBAN}"]) == [
        ("other", "customer-block")
    ]


def test_a_bank_details_line_names_the_issuers_account() -> None:
    """`Bankverbindung: IBAN ...` under a German invoice's totals is where it wants to be paid,
    and so is each language's way of printing it."""
    for label in (
        "Bankverbindung:",
        "Bankverbindung/IBAN:",
        "Coordonnées bancaires :",
        "Datos bancarios:",
        "Coordinate bancarie:",
        "Bankgegevens:",
    ):
        assert judged([f"{label} IBAN {BLAUWAL_IBAN}"]) == [("issuer", "pay-to")], label
    # Under a customer's block, with no blank line: still the issuer's.
    below_customer = ["Rechnungsempfänger: Nordlicht Handel AG", "Ostweg 3, 10115 Berlin"]
    found = judged([*below_customer, f"Bankverbindung: IBAN {BLAUWAL_IBAN}"])
    assert found == [("issuer", "pay-to")]


def test_a_pay_to_word_nearer_the_account_outranks_a_mandate_word() -> None:
    """Issue 56: "No direct debit: please pay by bank transfer to IBAN ..." is the payee's
    account, not a customer's mandate."""
    line = f"No direct debit: please pay by bank transfer to IBAN {CUSTOMER_IBAN}"
    assert judged([line]) == [("issuer", "pay-to")]
    assert judged([f"Keine Lastschrift. Bitte überweisen auf IBAN {CUSTOMER_IBAN}"]) == [
        ("issuer", "pay-to")
    ]


def test_the_readers_own_bank_details_are_someone_elses() -> None:
    assert judged([f"Ihre Bankverbindung: IBAN {CUSTOMER_IBAN}"]) == [("other", "reader-account")]
    assert judged([f"Customer IBAN: {CUSTOMER_IBAN}"]) == [("other", "reader-account")]


def test_an_account_printed_otherwise_is_judged_as_an_iban_is() -> None:
    dashed = BLAUWAL_IBAN.replace(" ", "-")
    assert judged([f"Bankverbindung: IBAN {dashed}"]) == [("issuer", "pay-to")]
    split = BLAUWAL_IBAN.split(" ")
    two_lines = [f"Please pay to IBAN {' '.join(split[:3])}", " ".join(split[3:])]
    assert judged(two_lines) == [("issuer", "pay-to")]


def test_national_accounts_and_unrecognized_values_are_judged_too() -> None:
    lines = ["Please pay by bank transfer to:", "Sort code: 60-16-13  Account number: 31926819"]
    page = from_text(1, "\n".join([*FILLER[:9], *lines, *FILLER[9:]]))
    (found,) = judge_accounts([page], None).accounts
    assert (found.kind, found.owner, found.why, found.payee) == ("uk", "issuer", "pay-to", True)
    assert found.shown() == {
        "iban": "UK•••• 6819",
        "valid": True,
        "owner": "issuer",
        "why": "pay-to",
        "page": 1,
        "kind": "uk",
    }
    # judge_ibans keeps to IBANs: what the privacy rule counts.
    assert judge_ibans([page], None) == []
    odd = from_text(1, "\n".join([*FILLER[:9], "IBAN: 1234 5678 9012", *FILLER[9:]]))
    (found,) = judge_accounts([odd], None).accounts
    assert (found.kind, found.valid, found.why, found.payee) == (
        "other",
        False,
        "unrecognized",
        True,
    )


def test_the_pages_payment_instructions_are_counted_outside_the_customers_block() -> None:
    asked = from_text(1, "\n".join([*FILLER[:9], "Bitte überweisen Sie auf folgendes Konto:"]))
    judged_page = judge_accounts([asked], None)
    assert judged_page.instructions >= 1 and not judged_page.settled
    paid = from_text(1, "\n".join([*FILLER[:9], "Betrag dankend erhalten.", "IBAN:"]))
    assert judge_accounts([paid], None).settled
