"""One page's accounts and what they are for (docflow/accounts/reader.py, labels.py): the
nearest payment word decides, a negated mandate is none, a label's unreadable value is an
account no check recognizes, and a page asks for an account or says it is paid."""

from __future__ import annotations

from docflow.accounts import OTHER, read_page
from docflow.accounts.labels import LABEL, MANDATE, PAY_TO, READER
from docflow.accounts.lines import text_lines


def purposes(text: str) -> list[tuple[str, str | None]]:
    page = read_page(text_lines(text))
    return [(f.account.masked, (p.kind if (p := page.purpose(f)) else None)) for f in page.found]


def test_a_pay_to_word_nearer_the_account_outranks_a_mandate_word() -> None:
    text = "No direct debit: please pay by bank transfer to IBAN GB82 WEST 1234 5698 7654 32"
    assert purposes(text) == [("GB•••• 5432", PAY_TO)]
    text = (
        "Payment by bank transfer or direct debit:\n"
        "Please debit my account:\n"
        "IBAN NL91 ABNA 0417 1643 00"
    )
    assert purposes(text) == [("NL•••• 4300", MANDATE)]


def test_a_negated_mandate_is_none() -> None:
    assert purposes("Keine Lastschrift. IBAN DE89 3704 0044 0532 0130 00") == [
        ("DE•••• 3000", None)
    ]
    assert purposes("SEPA-Lastschrift von IBAN DE89 3704 0044 0532 0130 00") == [
        ("DE•••• 3000", MANDATE)
    ]


def test_the_readers_own_account_and_bank_details() -> None:
    assert purposes("Wir überweisen den Betrag auf Ihr Konto\nIBAN NL91 ABNA 0417 1643 00") == [
        ("NL•••• 4300", READER)
    ]
    assert purposes("Ihre Bankverbindung: IBAN NL91 ABNA 0417 1643 00") == [("NL•••• 4300", READER)]
    assert purposes("Unsere Bankverbindung: IBAN NL91 ABNA 0417 1643 00") == [
        ("NL•••• 4300", PAY_TO)
    ]


def test_an_instruction_over_another_account_is_that_accounts() -> None:
    text = (
        "Please transfer to our account:\n"
        "IBAN DE89 3704 0044 0532 0130 00\n"
        "Refund account NL91 ABNA 0417 1643 00"
    )
    assert purposes(text) == [("DE•••• 3000", PAY_TO), ("NL•••• 4300", None)]


def test_a_labels_value_that_no_check_recognizes_is_an_unrecognized_account() -> None:
    page = read_page(text_lines("IBAN: GB82 WEST 1234 5698 7654 3"))  # a digit short
    assert [(f.account.kind, f.account.valid, f.labelled) for f in page.found] == [
        (OTHER, False, True)
    ]
    page = read_page(text_lines("Bank account: 12-3456-78901234"))
    assert [(f.account.kind, f.account.valid) for f in page.found] == [(OTHER, False)]
    # A label with nothing after it asks for an account (its value is elsewhere, or not
    # text); a label word followed by words is a header or prose, and asks for none.
    page = read_page(text_lines("IBAN:"))
    assert page.found == () and [c.kind for c in page.instructions()] == [LABEL]
    for words in ("Weltweit Bank IBAN SWIFT Code Giro No.", "CCC DDDDDDDDDD E FFFFFFFF"):
        page = read_page(text_lines(words))
        assert page.found == () and page.instructions() == [], words


def test_a_page_asks_for_an_account_unless_it_says_it_is_paid() -> None:
    asked = read_page(text_lines("Bitte überweisen Sie den Betrag auf folgendes Konto:"))
    assert {c.kind for c in asked.instructions()} == {PAY_TO} and not asked.settled
    paid = read_page(text_lines("Betrag dankend erhalten.\nBankverbindung: Commerzbank"))
    assert paid.settled
    debit = read_page(text_lines("Der Betrag wird per SEPA-Lastschrift eingezogen."))
    assert debit.settled and debit.instructions() == []
    # A transfer asked for beside a paid stamp is still asked for.
    both = read_page(text_lines("Already paid in part. Please pay the rest by bank transfer."))
    assert not both.settled
    # Terms alone ask for no account.
    terms = read_page(text_lines("Zahlbar innerhalb von 30 Tagen netto. Payable within 30 days."))
    assert terms.instructions() == [] and not terms.settled
