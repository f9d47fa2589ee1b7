"""The edges of the bank-details check (`docflow/suppliers/bank.py`) and of whose account it
is (`ownership.py`): which words make an account no payee (a mandate's, the reader's) and
which do not (the customer's block by layout alone), the verdicts' order when several apply,
what the page must ask for before an unread account holds, and how far a picture may sit from
its payment line. Each test names the boundary it guards (bench/README.md, "Mutation
testing")."""

from __future__ import annotations

from typing import cast

import pytest

from docflow.document.shown import AccountShown
from docflow.extract.base import PageInput
from docflow.extract.rules_engine.layout import Page, from_text, from_words
from docflow.readers.base import Word
from docflow.settings import load_settings
from docflow.suppliers.bank import (
    HOLDS,
    NO_PAYEE,
    OTHER_SUPPLIER,
    REGISTERED,
    UNKNOWN_SUPPLIER,
    UNREADABLE,
    UNRECOGNIZED,
    UNREGISTERED,
    VERDICTS,
    Asked,
    BankCheck,
    bank_of,
    check_bank_details,
)
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.match import Match
from docflow.suppliers.ownership import ISSUER, OTHER, IbanFinding, Judged, judge_accounts
from docflow.suppliers.payee import account_layout, asks_for_payment, check_bank, judged_accounts
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, CUSTOMER_IBAN
from tests.support.aws import Stack

MINE = BLAUWAL_IBAN.replace(" ", "")  # Commerzbank, registered for `blauwal`
THEIRS = CUSTOMER_IBAN.replace(" ", "")  # registered for `nordlicht`
LOOSE = "GB82WEST12345698765432"  # registered for nobody
HOLDER = {MINE: "blauwal", THEIRS: "nordlicht"}.get
FILLER = [f"Position {n}: storage and handling, as agreed" for n in range(1, 19)]


def finding(value: str, why: str = "pay-to", valid: bool = True, kind: str = "iban") -> IbanFinding:
    return IbanFinding(value, valid, ISSUER if valid else OTHER, why, 1, kind)


NOTHING_ASKED = Asked()


def verdict(
    accounts: list[IbanFinding], asked: Asked = NOTHING_ASKED, supplier: str | None = "blauwal"
) -> str:
    return check_bank_details(supplier, [MINE], accounts, HOLDER, asked).verdict


@pytest.mark.parametrize(
    ("why", "payee"),
    [
        ("debit-mandate", False),
        ("reader-account", False),
        ("customer-block", True),
        ("bad-checksum", True),
        ("unrecognized", True),
        ("registered", True),
        ("pay-to", True),
        ("footer", True),
        ("no-issuer-evidence", True),
    ],
)
def test_only_a_mandates_or_the_readers_account_is_no_payee(why: str, payee: bool) -> None:
    assert finding(LOOSE, why).payee is payee
    assert (verdict([finding(LOOSE, why)]) == UNREGISTERED) is payee


def test_an_account_the_layout_alone_puts_in_the_customers_block_is_still_checked() -> None:
    """Issue 56: the block's end is a guess, so an account there with no mandate's or
    reader's words is a possible payee, and one registered for nobody holds."""
    page = from_text(
        1,
        "\n".join([*FILLER[:9], "Bill to: Nordlicht Handel AG", f"IBAN {LOOSE}", *FILLER[9:]]),
    )
    judged = judge_accounts([page], None, [MINE])
    assert [(f.why, f.payee) for f in judged.accounts] == [("customer-block", True)]
    assert verdict(judged.accounts) == UNREGISTERED


def test_the_verdicts_are_tried_in_their_order() -> None:
    """Each verdict beats every one after it when both apply."""
    foreign, unregistered = finding(THEIRS), finding(LOOSE)
    misprint = finding(MINE[:-1] + "1", "bad-checksum", valid=False)
    registered = finding(MINE, "registered")
    unread = Asked(instructions=1, unreadable=1)
    everything = [foreign, unregistered, misprint, registered]
    assert verdict(everything, unread) == OTHER_SUPPLIER
    assert verdict(everything, unread, supplier=None) == OTHER_SUPPLIER
    # With no supplier, the registered account is another supplier's: left out here.
    assert verdict([unregistered, misprint], unread, supplier=None) == UNKNOWN_SUPPLIER
    assert verdict(everything[1:], unread) == UNREGISTERED
    assert verdict(everything[2:], unread) == UNRECOGNIZED
    assert verdict(everything[3:], unread) == UNREADABLE
    assert verdict(everything[3:]) == REGISTERED
    assert verdict([]) == NO_PAYEE
    assert verdict([], supplier=None) == UNKNOWN_SUPPLIER


def test_an_account_of_the_matched_supplier_is_not_another_suppliers() -> None:
    """`holder` naming the matched supplier itself is no foreign holder; a holder the
    registry does not know is none."""
    assert verdict([finding(MINE, "registered")]) == REGISTERED
    assert verdict([finding(LOOSE)]) == UNREGISTERED  # nobody holds it
    check = check_bank_details("nordlicht", [THEIRS], [finding(THEIRS)], HOLDER)
    assert check.verdict == REGISTERED and "holder" not in check.printed[0]
    # An account no IBAN stands for (a national one) is asked of nobody.
    asked: list[str] = []
    check_bank_details("blauwal", [MINE], [finding("60161331926819", kind="uk")], asked.append)
    assert asked == []


def test_no_supplier_registers_nothing_even_its_own_looking_account() -> None:
    check = check_bank_details(None, [MINE], [finding(LOOSE)], HOLDER)
    assert check.printed[0]["registered"] is False
    assert check.registered == () and check.supplier_id is None
    # With a supplier, its registered accounts are shown beside the printed ones.
    mine = check_bank_details("blauwal", [MINE], [finding(LOOSE)], HOLDER)
    assert mine.registered == (
        {"iban": "DE•••• 3000", "bank": "Commerzbank", "bic": "COBADEFFXXX"},
    )


def test_an_account_printed_twice_is_one_payee() -> None:
    check = check_bank_details("blauwal", [MINE], [finding(LOOSE), finding(LOOSE)], HOLDER)
    assert len(check.printed) == 1
    # A payee is kept over a mandate's account of the same value, whichever comes first.
    both = [finding(LOOSE, "debit-mandate"), finding(LOOSE)]
    assert check_bank_details("blauwal", [MINE], both, HOLDER).verdict == UNREGISTERED


@pytest.mark.parametrize(
    ("asked", "wants"),
    [
        (Asked(), False),
        (Asked(instructions=1), True),
        (Asked(instructions=3), True),
        (Asked(instructions=1, settled=True), False),
        (Asked(instructions=0, settled=True), False),
        (Asked(unreadable=1), False),
    ],
)
def test_the_page_wants_an_account_when_it_asks_for_one_and_is_not_paid(
    asked: Asked, wants: bool
) -> None:
    assert asked.wants_account is wants
    assert (verdict([], asked) == UNREADABLE) is (wants or asked.unreadable > 0)


def test_every_verdict_but_the_passing_three_holds() -> None:
    assert set(HOLDS) == {UNREGISTERED, OTHER_SUPPLIER, UNRECOGNIZED, UNREADABLE}
    assert set(VERDICTS) == {*HOLDS, REGISTERED, NO_PAYEE, UNKNOWN_SUPPLIER}
    for v in VERDICTS:
        assert BankCheck(v).holds is (v in HOLDS), v
        assert BankCheck(v, hold_unknown=True).holds is (v in HOLDS or v == UNKNOWN_SUPPLIER)


def test_each_verdict_says_what_holds_it() -> None:
    printed = bank_of(LOOSE)
    shown = {**printed, "registered": False}
    odd = {"iban": "•••• 6789", "kind": "other", "valid": False, "registered": False}
    foreign = {**bank_of(THEIRS), "holder": "nordlicht", "registered": False}
    mine = (bank_of(MINE),)
    assert BankCheck(UNREGISTERED, (shown,), mine, "blauwal").message() == (
        "the invoice asks to be paid on GB•••• 5432, which is not registered for supplier "
        "blauwal (registered: DE•••• 3000)"
    )
    assert (
        BankCheck(UNREGISTERED, (shown,), (), "blauwal")
        .message()
        .endswith("(registered: none registered)")
    )
    assert BankCheck(OTHER_SUPPLIER, (shown, foreign), mine, "blauwal").message() == (
        "the invoice asks to be paid on another supplier's account (NL•••• 4300 of nordlicht)"
    )
    assert BankCheck(UNRECOGNIZED, (shown, odd), mine, "blauwal").message() == (
        "the invoice prints an account no check recognizes (•••• 6789): a person reads it "
        "against the registered accounts"
    )
    assert (
        BankCheck(UNREADABLE)
        .message()
        .startswith("the invoice asks to be paid to an account that could not be read")
    )
    assert BankCheck(UNKNOWN_SUPPLIER, (shown,)).message() == (
        "no registered supplier issued it; it asks to be paid on GB•••• 5432"
    )
    assert BankCheck(UNKNOWN_SUPPLIER).message() == (
        "no registered supplier issued it, and it prints no bank account"
    )
    assert BankCheck(REGISTERED, (shown,), mine, "blauwal").message() == ""
    assert BankCheck(NO_PAYEE).message() == ""


def test_an_unknown_supplier_passes_unless_the_caller_says_hold() -> None:
    """`check_bank_details`'s `hold_unknown` defaults to False (`unknown_payee = "pass"`)."""
    passed = check_bank_details(None, [], [finding(LOOSE)], HOLDER)
    assert passed.verdict == UNKNOWN_SUPPLIER and not passed.holds
    held = check_bank_details(None, [], [finding(LOOSE)], HOLDER, hold_unknown=True)
    assert held.verdict == UNKNOWN_SUPPLIER and held.holds


def test_each_message_lists_every_account_it_names() -> None:
    """Two accounts of a message are both said, comma separated; an unregistered verdict
    with no account printed says `none`; what is shown carries the message itself."""
    nordlicht = {"iban": "GB•••• 5432", "holder": "nordlicht", "registered": False}
    zeeland = {"iban": "NL•••• 4300", "holder": "zeeland", "registered": False}
    both = BankCheck(OTHER_SUPPLIER, cast("tuple[AccountShown, ...]", (nordlicht, zeeland)))
    assert both.message() == (
        "the invoice asks to be paid on another supplier's account "
        "(GB•••• 5432 of nordlicht, NL•••• 4300 of zeeland)"
    )
    odd = ({"iban": "•••• 6789", "valid": False}, {"iban": "•••• 1234", "valid": False})
    unrecognized = BankCheck(UNRECOGNIZED, cast("tuple[AccountShown, ...]", odd))
    assert unrecognized.message().startswith(
        "the invoice prints an account no check recognizes (•••• 6789, •••• 1234): "
    )
    assert unrecognized.shown()["message"] == unrecognized.message()
    assert (
        BankCheck(UNREGISTERED, (), (), "blauwal")
        .message()
        .startswith("the invoice asks to be paid on none, which is not registered")
    )
    assert BankCheck(UNREADABLE).message() == (
        "the invoice asks to be paid to an account that could not be read (an account's label "
        "or a transfer instruction with no account readable, or a picture at the payment line "
        "OCR could not read)"
    )


def test_what_is_shown_carries_a_message_and_a_supplier_only_when_there_are_any() -> None:
    assert BankCheck(NO_PAYEE).shown() == {"verdict": NO_PAYEE, "printed": []}
    registered = BankCheck(REGISTERED, (bank_of(MINE),), (bank_of(MINE),), "blauwal").shown()
    assert registered == {
        "verdict": REGISTERED,
        "printed": [bank_of(MINE)],
        "supplierId": "blauwal",
        "registered": [bank_of(MINE)],
    }
    unknown = BankCheck(UNKNOWN_SUPPLIER, (bank_of(LOOSE),)).shown()
    assert set(unknown) == {"verdict", "printed", "message"}


def test_an_account_is_shown_masked_with_its_kind_validity_and_bank() -> None:
    assert bank_of(MINE) == {"iban": "DE•••• 3000", "bank": "Commerzbank", "bic": "COBADEFFXXX"}
    # A bank code schwifty's registry does not list: no bank, no BIC.
    assert bank_of("GB82WEST12345698765432") == {"iban": "GB•••• 5432"}
    # An IBAN that fails its check: masked, marked, and no bank looked up.
    bad = bank_of(finding(MINE[:-1] + "1", "bad-checksum", valid=False))
    assert bad == {"iban": "DE•••• 3001", "valid": False}
    uk = bank_of(finding("60161331926819", kind="uk"))
    assert uk == {"iban": "UK•••• 6819", "kind": "uk"}
    assert bank_of("not an iban") == {"iban": "no•••• iban"}


def test_a_found_iban_is_shown_with_its_bank_even_where_its_national_key_fails() -> None:
    """`bank_of` looks the bank up for a found account that is a valid IBAN (its own check
    digits pass), without schwifty's national BBAN check: a French IBAN whose RIB key is
    wrong still names La Banque Postale, so the reviewer sees whose bank is asked for."""
    found = bank_of(finding(MINE))
    assert found == {"iban": "DE•••• 3000", "bank": "Commerzbank", "bic": "COBADEFFXXX"}
    rib_key_wrong = "FR8420041010050500013M02607"
    assert bank_of(rib_key_wrong) == {
        "iban": "FR•••• 2607",
        "bank": "LA BANQUE POSTALE",
        "bic": "PSSTFRPP",
    }


PICTURE_PAGE = [*FILLER[:8], "Please transfer the amount to our account:", *FILLER[8:]]
PAYMENT_LINE = 8
GAP, HEIGHT = 0.05, 0.02  # lines 0.05 apart, each 0.02 high: the page's line height


def boxed_page(lines: list[str]) -> Page:
    """A page laid out from word boxes (as a text layer gives them), one line every GAP."""
    words = []
    for row, text in enumerate(lines):
        x = 0.05
        for token in text.split():
            width = 0.012 * len(token)
            words.append(Word(token, (x, 0.05 + row * GAP, x + width, 0.05 + row * GAP + HEIGHT)))
            x += width + 0.01
    return from_words(1, words)


def unread_at(offset: float) -> int:
    """Unread pictures counted for one picture `offset` line heights under the payment line's
    bottom (negative: over its top)."""
    top = 0.05 + PAYMENT_LINE * GAP
    bottom = top + HEIGHT
    if offset >= 0:
        box = (0.6, bottom + offset * HEIGHT, 0.8, bottom + offset * HEIGHT + 0.01)
    else:
        box = (0.6, top + offset * HEIGHT - 0.01, 0.8, top + offset * HEIGHT)
    return judge_accounts([boxed_page(PICTURE_PAGE)], None, (), {1: [box]}).unreadable


def test_an_unread_picture_counts_within_two_line_heights_of_a_payment_line() -> None:
    page = boxed_page(PICTURE_PAGE)
    assert page.line_height == pytest.approx(HEIGHT)
    assert "transfer" in " ".join(c.text for c in page.lines[PAYMENT_LINE])
    for offset in (0.0, 1.0, 1.95, -1.95):
        assert unread_at(offset) == 1, offset
    for offset in (2.05, 3.0, -2.05):
        assert unread_at(offset) == 0, offset
    # On another page, or with no payment line on its page, a picture counts for nothing.
    near = (0.6, 0.5, 0.8, 0.51)
    assert judge_accounts([page], None, (), {2: [near]}).unreadable == 0
    bare = boxed_page(FILLER)
    assert judge_accounts([bare], None, (), {1: [near]}).unreadable == 0
    # Two pictures at the line are two; one picture near two payment lines is one.
    assert judge_accounts([page], None, (), {1: [near, near]}).unreadable == 2
    twice = [*PICTURE_PAGE[:9], "Bank transfer: see the IBAN above", *PICTURE_PAGE[9:]]
    assert judge_accounts([boxed_page(twice)], None, (), {1: [near]}).unreadable == 1


def whose(lines: list[str], page: int = 1) -> list[str]:
    return [f.why for f in judge_accounts([from_text(page, "\n".join(lines))], None).accounts]


LONG = [f"Position {n}: storage and handling, as agreed" for n in range(100)]


def test_a_checked_tax_id_makes_the_account_the_issuers_within_two_lines_either_side() -> None:
    def page(vat_at: int) -> list[str]:
        lines = list(LONG[:40])
        lines[20] = f"IBAN {LOOSE}"
        lines[vat_at] = f"USt-IdNr.: {BLAUWAL_VAT}"
        return lines

    assert whose(page(18)) == ["beside-issuer-id"]
    assert whose(page(22)) == ["beside-issuer-id"]
    assert whose(page(17)) == ["no-issuer-evidence"]
    assert whose(page(23)) == ["no-issuer-evidence"]


def test_the_top_third_and_the_bottom_quarter_end_where_they_say() -> None:
    """On a page laid out from text, a line's place is its index over the line count: line
    32 of 100 is in the top third of page 1, line 33 is not; line 75 is in the footer, 74
    not."""

    def at(index: int, page: int = 1) -> list[str]:
        lines = list(LONG)
        lines[index] = f"IBAN {LOOSE}"
        return whose(lines, page)

    assert at(32) == ["issuer-block"]
    assert at(33) == ["no-issuer-evidence"]
    assert at(32, page=2) == ["no-issuer-evidence"]  # the issuer's block is page 1's
    assert at(74) == ["no-issuer-evidence"]
    assert at(75) == ["footer"]
    assert at(75, page=2) == ["footer"]


def test_on_a_page_of_word_boxes_the_place_is_the_lines_own_height() -> None:
    """A page read with boxes places a line by its top, not by its index: twelve lines at
    the top of an A4 page are all in its top third."""
    lines = [*FILLER[:5], f"IBAN {LOOSE}", *FILLER[5:11]]
    page = boxed_page(lines)  # lines 0.05 apart from 0.05: the IBAN's at 0.30
    assert [f.why for f in judge_accounts([page], None).accounts] == ["issuer-block"]
    low = boxed_page([*FILLER[:15], f"IBAN {LOOSE}"])  # at 0.80
    assert [f.why for f in judge_accounts([low], None).accounts] == ["footer"]
    middle = boxed_page([*FILLER[:10], f"IBAN {LOOSE}", *FILLER[10:14]])  # at 0.55
    assert [f.why for f in judge_accounts([middle], None).accounts] == ["no-issuer-evidence"]


# -- payee.py: when the check runs, and on what --------------------------------------------


def text_page(text: str, **more: object) -> PageInput:
    return PageInput(1, text, "textlayer", 100.0, **more)  # type: ignore[arg-type]


def test_a_page_asks_for_payment_when_it_prints_an_account_or_a_transfer_or_an_unread_picture() -> (
    None
):
    assert not asks_for_payment([text_page("Receipt\nThank you for your visit")])
    assert asks_for_payment([text_page(f"Receipt\nIBAN {LOOSE}")])
    assert asks_for_payment([text_page("Receipt\nPlease transfer the amount")])
    assert asks_for_payment([text_page("Receipt"), text_page("Bitte überweisen Sie")])
    picture = [Word(w, (0.1, 0.5, 0.2, 0.52)) for w in ("IBAN", LOOSE)]
    assert asks_for_payment([text_page("Receipt", picture_words=picture)])
    assert asks_for_payment([text_page("Receipt", unread_pictures=[(0.1, 0.5, 0.3, 0.55)])])
    nothing = [Word("Thanks", (0.1, 0.5, 0.2, 0.52))]
    assert not asks_for_payment([text_page("Receipt", picture_words=nothing)])
    assert not asks_for_payment([])


def test_a_picture_beside_its_label_is_read_as_one_line_with_it() -> None:
    label = Word("IBAN:", (0.1, 0.5, 0.16, 0.52))
    pictured = Word(LOOSE, (0.18, 0.5, 0.45, 0.52))
    page = text_page("IBAN:", words=[label], picture_words=[pictured])
    assert [[c.text for c in line] for line in account_layout(page).lines] == [[f"IBAN: {LOOSE}"]]
    words_only = text_page("IBAN:", words=[label])
    assert [[c.text for c in line] for line in account_layout(words_only).lines] == [["IBAN:"]]
    judged = judged_accounts([page], None)
    assert [f.value for f in judged.accounts] == [LOOSE]
    second = PageInput(2, "IBAN:", "textlayer", 100.0, words=[label], picture_words=[pictured])
    assert account_layout(second).number == 2  # the page's own number, not the first's
    assert [f.page for f in judged_accounts([page, second], None).accounts] == [1, 2]
    # Without pictures the page is laid out as the rules engine lays it out.
    plain = text_page(f"IBAN: {LOOSE}")
    assert [f.value for f in judged_accounts([plain], None).accounts] == [LOOSE]
    unread = text_page("Please transfer to our account:", unread_pictures=[(0.1, 0.5, 0.3, 0.55)])
    assert judged_accounts([unread], None).unreadable == 0  # a text page's line has no box


def test_the_pages_are_judged_with_the_vendor_the_registry_and_their_unread_pictures() -> None:
    """`judged_accounts` hands each of its inputs to the judge: the printed vendor's name
    (an account beside it is the issuer's), the registered accounts (one of them is the
    issuer's) and the pictures OCR could not read (one at the payment line is unreadable)."""
    page = text_page(f"Blauwal Hafen GmbH\nIBAN: {LOOSE}")
    owners = [(f.owner, f.why) for f in judged_accounts([page], None).accounts]
    assert owners == [(OTHER, "no-issuer-evidence")]
    beside = judged_accounts([page], "Blauwal Hafen GmbH").accounts
    assert [(f.owner, f.why) for f in beside] == [(ISSUER, "beside-issuer-name")]
    registered = judged_accounts([page], None, [LOOSE]).accounts
    assert [(f.owner, f.why) for f in registered] == [(ISSUER, "registered")]
    words = []
    for row, text in enumerate(PICTURE_PAGE):
        x = 0.05
        for token in text.split():
            width = 0.012 * len(token)
            words.append(Word(token, (x, 0.05 + row * GAP, x + width, 0.05 + row * GAP + HEIGHT)))
            x += width + 0.01
    y = 0.05 + PAYMENT_LINE * GAP
    pictured = text_page(
        "\n".join(PICTURE_PAGE), words=words, unread_pictures=[(0.7, y, 0.9, y + HEIGHT)]
    )
    assert judged_accounts([pictured], None).unreadable == 1


def test_the_check_runs_for_a_paid_type_or_a_page_that_asks_and_only_with_a_registry(
    stack: Stack,
) -> None:
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,iban\nblauwal,Blauwal GmbH,{MINE}\n")
    nothing = judge_accounts([from_text(1, "Receipt")], None)
    assert check_bank(store, None, [], ["total"], nothing, False) is None
    assert check_bank(None, None, [finding(LOOSE)], ["vendor_name"], nothing, False) is None
    paid = check_bank(store, None, [], ["vendor_name"], nothing, False)
    assert paid is not None and paid.verdict == UNKNOWN_SUPPLIER and not paid.holds
    asked = judge_accounts([from_text(1, "Please transfer the amount to our account")], None)
    unread = check_bank(store, None, [], ["total"], asked, True)
    assert unread is not None and unread.verdict == UNKNOWN_SUPPLIER and unread.holds
    blauwal = store.get("blauwal")
    assert blauwal is not None
    match = Match(blauwal, "vat", "vat:x")
    mine = check_bank(store, match, [finding(MINE)], ["total"], nothing, False)
    assert mine is not None and (mine.verdict, mine.supplier_id) == (REGISTERED, "blauwal")
    none = check_bank(store, match, [], ["vendor_name"], nothing, False)
    assert none is not None and none.verdict == NO_PAYEE
    # What the pages ask for reaches the check whole: a page that says it is paid asks for
    # no account; a picture at the payment line nobody could read is an unreadable account.
    settled = check_bank(
        store, match, [], ["vendor_name"], Judged(instructions=1, settled=True), False
    )
    assert settled is not None and settled.verdict == NO_PAYEE
    asked_only = check_bank(store, match, [], ["vendor_name"], Judged(instructions=1), False)
    assert asked_only is not None and asked_only.verdict == UNREADABLE
    pictured = check_bank(store, match, [], ["vendor_name"], Judged(unreadable=1), False)
    assert pictured is not None and pictured.verdict == UNREADABLE
    theirs = check_bank(store, None, [finding(MINE)], ["total"], nothing, False)
    assert theirs is not None and theirs.verdict == OTHER_SUPPLIER
    assert theirs.printed[0]["holder"] == "blauwal"
