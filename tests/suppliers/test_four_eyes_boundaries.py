"""The edges of four eyes (`docflow/suppliers/four_eyes.py`) and of names as a person sees them
(`docflow/names.py`): an ARN's last part with or without a path, a `[people]` chain three
entries long, a joiner at a word's edge or between two scripts, a character with no name, and
look-alikes that hide behind invisible or full-width characters. Each test names the boundary
it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

import pytest

from docflow import names
from docflow.rules.people import People
from docflow.suppliers.four_eyes import approver_problem, person, same_person

ZWSP, ZWNJ, ZWJ, RLO = "\u200b", "\u200c", "\u200d", "\u202e"


@pytest.mark.parametrize(
    ("principal", "tail"),
    [
        ("arn:aws:iam::123456789012:user/ap", "ap"),
        ("arn:aws:iam::123456789012:user/team/ap", "ap"),
        ("arn:aws:sts::123456789012:assumed-role/Operators/ap@example.com", "ap@example.com"),
        ("arn:aws:iam::123456789012:root", "root"),
    ],
)
def test_an_arns_last_part_is_the_identity_it_names(principal: str, tail: str) -> None:
    """The last part after the last `/`, or after the last `:` where there is no path."""
    assert names.identity_key(tail) != names.identity_key(principal)
    assert same_person(principal, tail) and same_person(tail, principal)
    assert approver_problem(principal, tail) == (
        f"it was proposed by {tail}: another person must approve it"
    )
    # Only the last part: the account id or the role's name is nobody.
    assert not same_person(principal, "123456789012")
    assert not same_person(principal, "arn")


def test_a_name_that_only_looks_like_an_arn_has_no_tail() -> None:
    assert not same_person("notarn:aws:iam::1:user/ap", "ap")
    assert not same_person("ap/clerk", "clerk")


def test_a_chain_of_people_entries_is_one_person_however_long() -> None:
    """Entries that share a principal are one person, through any number of entries and in
    any order of the table."""
    chain = People(
        (
            ("c@example.com", ("carol",)),
            ("a@example.com", ("clerk",)),
            ("b@example.com", ("clerk", "carol")),
        )
    )
    assert person("a@example.com", chain) == frozenset(
        {"a@example.com", "clerk", "b@example.com", "carol", "c@example.com"}
    )
    assert same_person("a@example.com", "c@example.com", chain)
    assert approver_problem("carol", "a@example.com", chain) == (
        "it was proposed by a@example.com, whom the rules file's [people] table names as "
        "carol too: another person must approve it"
    )
    # An entry that shares nothing stays another person.
    apart = People((*chain.entries, ("d@example.com", ("dave",))))
    assert not same_person("a@example.com", "dave", apart)
    assert approver_problem("dave", "a@example.com", apart) == ""
    # A group already wholly known adds nothing and ends the search.
    assert person("zed", chain) == frozenset({"zed"})


def test_an_approval_needs_two_identities_that_are_not_one_person() -> None:
    assert approver_problem("", "ap@example.com") == (
        "who approves it? docflow found no principal to record"
    )
    assert approver_problem(f" {ZWSP}", "ap@example.com").startswith("who approves it?")
    assert approver_problem("controller", "") == (
        "it names no proposer, so four eyes cannot hold: reject it"
    )
    assert approver_problem("controller", ZWSP).startswith("it names no proposer")
    assert approver_problem(f"AP@Example.com{ZWSP}", "ap@example.com").startswith(
        "it was proposed by ap@example.com: another"
    )
    assert approver_problem("controller", "ap@example.com") == ""


def test_an_identity_is_compared_folded_and_without_what_renders_as_nothing() -> None:
    assert names.identity_key(f"  AP@Example.COM{ZWSP}\u00ad ") == "ap@example.com"
    assert names.identity_key("ＡＰ@example.com") == "ap@example.com"  # NFKC
    assert names.identity_key("STRASSE") == names.identity_key("straße")  # case folded
    # A look-alike is one person though its identity key differs.
    cyrillic = "\u0430p@example.com"  # a Cyrillic a
    assert names.identity_key(cyrillic) != "ap@example.com"
    assert same_person(cyrillic, "ap@example.com")


def test_a_skeleton_ignores_invisible_characters_and_reads_full_width_letters() -> None:
    plain = names.skeleton("Blauwal")
    assert names.skeleton(f"Bl{ZWSP}au{ZWJ}wal") == plain
    assert names.skeleton("\uff22\uff4c\uff41\uff55\uff57\uff41\uff4c") == plain  # Ｂｌａｕｗａｌ
    assert names.skeleton("BIauwaI") == plain  # capital I for small l
    assert names.skeleton("Blauwald") != plain
    # A character the table lists keeps its prototype, not its compatibility form.
    assert names.skeleton("\u017f") == names.skeleton("f")  # long s looks like an f
    assert names.skeleton("\u017f") != names.skeleton("s")


def test_ascii_twins_replace_only_one_character_look_alikes() -> None:
    assert names.ascii_twins("Gmb\u041d") == "GmbH"  # a Cyrillic En
    assert names.ascii_twins("GmbH") == "GmbH"
    assert names.ascii_twins("\uff27mbH") == "GmbH"  # NFKC first
    # `m` has the prototype `rn` (two characters): an ASCII m stays an m.
    assert names.ascii_twins("GmbH AG") == "GmbH AG"
    # A non-ASCII letter with no ASCII look-alike stays as it is.
    assert names.ascii_twins("Straße") == "Straße"


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("Blauwal", []),
        (f"Blau{ZWSP}wal", [ZWSP]),
        (f"Blau{ZWNJ}wal", [ZWNJ]),  # Latin never shapes with a joiner
        ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", []),  # Persian می‌خواهم
        (f"{ZWNJ}\u0645\u06cc", [ZWNJ]),  # at the start: beside no letter
        (f"\u0645\u06cc{ZWNJ}", [ZWNJ]),  # at the end
        (f"\u0645{ZWJ}b", [ZWJ]),  # between two scripts
        (f"\u0645{ZWJ}1", [ZWJ]),  # beside a digit, no letter
        (f"\u0645\u0651{ZWJ}\u0645", []),  # a mark takes its letter's script
        (f"a{RLO}b\u034f", [RLO, "\u034f"]),  # a default-ignorable that is not Cf
    ],
)
def test_a_joiner_is_kept_only_between_two_letters_of_a_shaping_script(
    text: str, flagged: list[str]
) -> None:
    assert names.format_chars(text) == flagged
    assert names.has_format(text) is bool(flagged)


def test_an_invisible_character_is_named_and_one_with_no_name_shows_its_code_point() -> None:
    assert names.describe(RLO) == "U+202E (RIGHT-TO-LEFT OVERRIDE)"
    assert names.describe("\ue000") == "U+E000"
    assert names.describe("\U000e0041") == "U+E0041 (TAG LATIN CAPITAL LETTER A)"
    assert names.strip_format(f"a{ZWSP}b\u034fc{RLO}") == "abc"


@pytest.mark.parametrize(
    ("word", "mixed"),
    [
        ("Blauwal", False),
        ("\u0412lauwal", True),  # a Cyrillic Ve
        ("Bl\u03b1uwal", True),  # a Greek alpha
        ("Sony\u682a\u5f0f\u4f1a\u793e", False),  # Latin with Han: one word in Japanese
        ("Sony\u30bd\u30cb\u30fc", False),  # with Katakana
        ("Sam\uc0bc\uc131", False),  # with Hangul
        ("\u0416\u4e2d", True),  # Cyrillic with Han
        ("Blauwal42", False),  # digits are every script's
        ("\u0445\u0430\u0439", False),  # Cyrillic alone
    ],
)
def test_a_word_mixes_scripts_unless_one_of_tr39s_sets_holds_them(word: str, mixed: bool) -> None:
    assert names.mixed_script(word) is mixed
    assert names.mixed_words(f"{word} GmbH") == ([word] if mixed else [])


def test_words_are_runs_of_letters_marks_digits_and_invisible_characters() -> None:
    assert list(names.words(f"Blau{ZWSP}wal-Hafen, GmbH 42!")) == [
        f"Blau{ZWSP}wal",
        "Hafen",
        "GmbH",
        "42",
    ]
    assert list(names.words("")) == []
    assert list(names.words("...")) == []
    assert names.scripts("Blauwal 42") == frozenset({"LATIN"})
