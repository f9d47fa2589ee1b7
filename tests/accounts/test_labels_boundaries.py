"""The edges of what an account is for (docflow/accounts/labels.py `nearest`): a pay-to word up
to three lines over an account and not four, a mandate word on its line or the one over it and
not two over, no word under it, a word on another account's line its own, a label between
them no stop, and a word glued to the account's end after it. Each test names the boundary it
guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from docflow.accounts import read_page
from docflow.accounts.labels import MANDATE, PAY_TO, READER, cues
from docflow.accounts.lines import text_lines

GB = "GB82 WEST 1234 5698 7654 32"


def purposes(text: str) -> list[tuple[str, str | None]]:
    page = read_page(text_lines(text))
    return [(f.account.value[:4], (c.kind if (c := page.purpose(f)) else None)) for f in page.found]


def test_a_pay_to_word_reaches_three_lines_down_and_not_four() -> None:
    assert purposes(f"Please pay by bank transfer\n\n\n{GB}") == [("GB82", PAY_TO)]
    assert purposes(f"Please pay by bank transfer\n\n\n\n{GB}") == [("GB82", None)]


def test_a_mandate_word_reaches_one_line_down_and_not_two() -> None:
    assert purposes(f"Lastschrift\n{GB}") == [("GB82", MANDATE)]
    assert purposes(f"Lastschrift\n\n{GB}") == [("GB82", None)]


def test_a_word_under_an_account_says_nothing_of_it() -> None:
    assert purposes(f"{GB}\nPlease pay by bank transfer") == [("GB82", None)]


def test_a_word_on_another_accounts_line_is_that_accounts() -> None:
    text = f"Lastschrift von DE89 3704 0044 0532 0130 00\n{GB}"
    assert purposes(text) == [("DE89", MANDATE), ("GB82", None)]


def test_a_word_over_another_accounts_line_does_not_reach_past_it() -> None:
    """The pay-to word is two lines over the GB IBAN, but the line between holds an account of
    its own: the mandate word on the GB IBAN's line is its purpose."""
    text = f"Please pay by bank transfer\nIBAN DE89 3704 0044 0532 0130 00\nLastschrift: {GB}"
    assert purposes(text) == [("DE89", PAY_TO), ("GB82", MANDATE)]


def test_a_label_before_the_purpose_word_is_passed_over() -> None:
    assert purposes(f"IBAN: {GB} (SEPA-Lastschrift)") == [("GB82", MANDATE)]


def test_a_word_glued_to_an_accounts_end_is_after_it() -> None:
    """`...32Lastschrift`: the mandate word starts where the IBAN ends, so it counts as after
    it (at the penalty), and the transfer asked for before it is nearer."""
    assert purposes(f"Bank transfer to {GB}Lastschrift") == [("GB82", PAY_TO)]


def test_a_cue_inside_a_longer_one_of_another_kind_is_the_longers() -> None:
    """`Kunden-IBAN` is the reader's own account: the label `IBAN` inside it is no label (its
    value is not read as an account), and the cues after it on the line are still read."""
    assert [c.kind for c in cues(["kunden-iban: 1234 5678 9012 34, bitte uberweisen sie"])] == [
        READER,
        PAY_TO,
    ]
    assert read_page(text_lines("Kunden-IBAN: 1234 5678 9012 34")).found == ()


def test_a_negated_mandate_word_leaves_the_next_one_on_its_line() -> None:
    kinds = [c.kind for c in cues(["keine lastschrift. wir buchen per sepa-lastschrift ab"])]
    assert kinds == [MANDATE]


def test_a_word_a_line_over_counts_as_ten_thousand_characters_less_its_end() -> None:
    """`Please pay by bank transfer` (ending at 27) over the IBAN is 10,000 - 27 away; a
    mandate word after the IBAN on its own line ties with it at 9,960 (the word over it, read
    first, wins) and is nearer at 9,959."""
    over = "Please pay by bank transfer\n"
    for start, want in ((9_960, PAY_TO), (9_959, MANDATE)):
        line = GB.ljust(start) + "Lastschrift"
        assert purposes(over + line) == [("GB82", want)], start


def test_a_word_around_the_account_is_at_no_distance() -> None:
    """`Zahlbar ... auf` spans the IBAN: it is its purpose, before the transfer word after."""
    assert purposes(f"Zahlbar {GB} auf, per Überweisung") == [("GB82", PAY_TO)]


def test_a_word_around_the_account_is_nearer_than_one_a_character_before_it() -> None:
    """`autorise ... debiter` ends one character before the IBAN; `zahlbar ... auf` (begun
    inside it) spans the IBAN: no distance beats that one."""
    assert purposes(f"Autorise zahlbar debiter {GB} auf") == [("GB82", PAY_TO)]


def test_a_cue_starting_where_a_longer_one_of_another_kind_does_is_the_longers() -> None:
    assert [c.kind for c in cues(["iban des kunden: de89 3704 0044 0532 0130 00"])] == [READER]
