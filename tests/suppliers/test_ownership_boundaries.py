"""The edges of whose account it is (docflow/suppliers/ownership.py): a pay-to word on the line
of an account in the customer's block makes it the payee's, one on the line over it does not;
a German Konto keeps the IBAN it is. Each test names the boundary it guards (bench/README.md,
"Mutation testing")."""

from __future__ import annotations

from docflow.extract.rules_engine.layout import Cell, Page, from_text
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


def boxed(
    rows: list[list[tuple[str, float, float]]], y: float = 0.4, height: float = 0.0625
) -> Page:
    """A page of boxed cells, one row a line from `y` down, each line `height` tall."""
    lines = [
        [Cell(text, x0, y + i * height, x1, y + (i + 1) * height, i, 1) for text, x0, x1 in row]
        for i, row in enumerate(rows)
    ]
    return Page(1, lines, height)


def test_an_iban_broken_over_two_lines_goes_on_in_its_own_column() -> None:
    """The cells' extents reach the account reader: the IBAN's rest is under it in its column,
    not the other column's text at the next line's start."""
    page = boxed(
        [
            [("Blauwal GmbH", 0.05, 0.3), ("IBAN GB82 WEST 1234", 0.5, 0.8)],
            [("Kaiweg 12", 0.05, 0.2), ("5698 7654 32", 0.5, 0.65)],
        ]
    )
    found = judge_accounts([page], None).accounts
    assert [(f.value, f.valid) for f in found] == [("GB82WEST12345698765432", True)]


def test_the_vendors_name_over_two_cells_is_read_as_one_line() -> None:
    page = boxed(
        [
            [("Blauwal", 0.05, 0.2), ("Hafenlogistik GmbH", 0.21, 0.5)],
            [(f"IBAN {CUSTOMER_IBAN}", 0.05, 0.6)],
        ]
    )
    found = judge_accounts([page], "Blauwal Hafenlogistik GmbH").accounts
    assert [f.why for f in found] == ["beside-issuer-name"]


def test_no_vendor_name_is_looked_for_when_there_is_none() -> None:
    found = judge_accounts([page(1, ["Ref XXXX-2024", f"IBAN {CUSTOMER_IBAN}"])], None).accounts
    assert [f.why for f in found] == ["no-issuer-evidence"]


def test_a_picture_two_line_heights_from_a_payment_line_is_at_it() -> None:
    """Line height 1/16: reach 1/8. A picture whose top is 1/8 under the payment line's
    bottom, or whose bottom is 1/8 over its top, sits at it; every page's count adds up."""
    asked = boxed([[("Please pay by bank transfer", 0.05, 0.6)]], y=0.5)  # band 0.5 .. 0.5625
    below = (0.1, 0.6875, 0.3, 0.75)
    above = (0.1, 0.25, 0.3, 0.375)
    farther = (0.1, 0.6876, 0.3, 0.75)
    assert judge_accounts([asked], None, unread={1: [below]}).unreadable == 1
    assert judge_accounts([asked], None, unread={1: [above]}).unreadable == 1
    assert judge_accounts([asked], None, unread={1: [farther]}).unreadable == 0
    second = Page(
        2, [[Cell(c.text, c.x0, c.y0, c.x1, c.y1, c.line, 2) for c in asked.lines[0]]], 0.0625
    )
    both = judge_accounts([asked, second], None, unread={1: [below], 2: [above]})
    assert both.unreadable == 2
