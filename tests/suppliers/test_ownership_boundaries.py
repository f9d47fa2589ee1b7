"""The edges of whose account it is (docflow/suppliers/ownership.py): a pay-to word on the line
of an account in the customer's block makes it the payee's, one on the line over it does not;
a German Konto keeps the IBAN it is. Each test names the boundary it guards (bench/README.md,
"Mutation testing")."""

from __future__ import annotations

from docflow.extract.rules_engine.layout import Page, from_text
from docflow.suppliers.ownership import judge_accounts
from tests.suppliers.papers import CUSTOMER_IBAN

FILLER = [f"Position {n}: storage and handling, as agreed" for n in range(1, 19)]


def judged(middle: list[str]) -> list[tuple[str, str, str | None]]:
    page = from_text(1, "\n".join([*FILLER[:9], *middle, *FILLER[9:]]))
    return [(f.owner, f.why, f.registry_iban) for f in judge_accounts([page], None).accounts]


def test_a_pay_to_word_on_the_customer_blocks_account_line_makes_it_the_payees() -> None:
    iban = CUSTOMER_IBAN.replace(" ", "")
    own_line = [
        "Bill to: Nordlicht Handel AG",
        f"Please pay by bank transfer to IBAN {CUSTOMER_IBAN}",
    ]
    assert judged(own_line) == [("issuer", "pay-to", iban)]
    line_over = [
        "Bill to: Nordlicht Handel AG",
        "Please pay by bank transfer",
        f"IBAN {CUSTOMER_IBAN}",
    ]
    assert judged(line_over) == [("other", "customer-block", iban)]


def test_a_german_konto_keeps_the_iban_it_is() -> None:
    assert judged(["Konto-Nr.: 532013000  BLZ: 370 400 44"]) == [
        ("other", "no-issuer-evidence", "DE89370400440532013000")
    ]


def page(number: int, middle: list[str]) -> Page:
    return from_text(number, "\n".join([*FILLER[:9], *middle, *FILLER[9:]]))


def test_the_payment_instructions_of_every_page_count() -> None:
    asked = ["Please pay by bank transfer"]  # two pay-to words: `please pay`, `bank transfer`
    assert judge_accounts([page(1, asked)], None).instructions == 2
    assert judge_accounts([page(1, asked), page(2, asked)], None).instructions == 4


def test_no_page_is_not_settled() -> None:
    assert judge_accounts([], None).settled is False


def test_a_vendor_name_of_three_letters_is_looked_for_and_only_where_it_is() -> None:
    iban = f"IBAN {CUSTOMER_IBAN}"
    assert [f.why for f in judge_accounts([page(1, ["Ace Ltd", iban])], "Ace").accounts] == [
        "beside-issuer-name"
    ]
    assert [f.why for f in judge_accounts([page(1, [iban])], "Blauwal").accounts] == [
        "no-issuer-evidence"
    ]
