"""Look-alike names (issue 56, item 3): a proposal whose name reads as a registered supplier's
(`Вlauwal` with a Cyrillic Ve, `BIauwaI` with capital I's) is a conflict, as is one that mixes
scripts in one word, or holds a character that renders as nothing; an honest other name stays
what rapidfuzz says it is. The matcher names the registered supplier for a look-alike printed
name too, so its invoice is checked against that supplier's accounts. And for any registered
name and any substitution of its letters by their confusables (Unicode's table), with any
invisible characters put in, the proposal is a conflict (hypothesis)."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from confusable_homoglyphs.confusables import confusables_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from docflow import names
from docflow.suppliers import history, proposals
from docflow.suppliers.csv_import import SupplierImportError, import_suppliers
from docflow.suppliers.match import _name_key, name_match
from docflow.suppliers.model import Supplier
from tests.suppliers.papers import BLAUWAL_VAT, OTHER_VAT
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry

REGISTERED = (
    "id,name,aliases,vat\n"
    f"blauwal,Blauwal Hafenlogistik GmbH,Blauwal;Blauwal Logistik,{BLAUWAL_VAT}\n"
)
_count = itertools.count()


def proposed(name: str, vat: str = OTHER_VAT) -> proposals.Proposal:
    n = next(_count)
    p = proposals.Proposal(
        proposals.proposal_id(f"d-{n}", "v-1"),
        name,
        {"vat": (vat,)},
        "EUR",
        f"d-{n}",
        "v-1",
        "ap@example.com",
        "2026-12-01T10:00:00+00:00",
    )
    return proposals.propose(registry(), p)


@pytest.mark.parametrize(
    "name,why",
    [
        ("\u0412lauwal GmbH", "matches registered supplier 'blauwal'"),  # a Cyrillic Ve
        ("\u0412lauwal GmbH", "mixes scripts in one word ('\u0412lauwal': Cyrillic, Latin)"),
        ("BIauwaI GmbH", "matches registered supplier 'blauwal'"),  # capital I for small l
        ("B1auwa1 Ltd", "matches registered supplier 'blauwal'"),
        ("Ｂｌａｕｗａｌ AG", "matches registered supplier 'blauwal'"),  # fullwidth
        ("BLAUWAL HAFENLOGIST\u0406K", "matches registered supplier 'blauwal'"),  # Cyrillic І
        ("Blauwal Hafenlogistik GrnbH", "matches registered supplier 'blauwal'"),  # rn for m
        ("Nordli\u0441ht Handel", "mixes scripts in one word ('Nordli\u0441ht'"),  # Cyrillic с
        ("Blau\u200bwal GmbH", "U+200B (ZERO WIDTH SPACE)"),
        ("Evil \u202eHbmG lawualB", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ],
)
def test_a_lookalike_or_mixed_script_or_hidden_name_is_a_conflict(
    stack: Stack, name: str, why: str
) -> None:
    import_suppliers(registry(), REGISTERED, "ops")
    p = proposed(name)
    assert p.status == "conflict" and why in p.conflict
    with pytest.raises(proposals.ProposalRefused, match="is conflict"):
        proposals.approve(registry(), p.proposal_id, "controller@example.com")


@pytest.mark.parametrize(
    "hidden", ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u200d", "\u3164", "\U000e0041"]
)
def test_the_import_refuses_a_name_or_alias_holding_an_invisible_character(
    stack: Stack, hidden: str
) -> None:
    """Not only the bidirectional controls: a zero-width space, a soft hyphen, a word joiner,
    a byte-order mark, a joiner between Latin letters, a Hangul filler, a tag character."""
    for text in (
        f"id,name\nok,Ok Ltd\nbad,Blau{hidden}wal GmbH\n",
        f"id,name,aliases\nok,Ok Ltd,\nbad,Bad AG,Blau{hidden}wal\n",
    ):
        with pytest.raises(SupplierImportError) as refused:
            import_suppliers(registry(), text, "ops")
        assert refused.value.row == 3 and names.describe(hidden) in str(refused.value)
    assert registry().all() == []


def test_a_name_registered_before_the_rule_still_reads_and_matches_as_it_looks(
    stack: Stack,
) -> None:
    """A supplier imported when only the bidirectional controls were refused keeps a zero-width
    space in its name: the registry still reads it (the rule is for new names), and a page or
    a proposal printing the name without it is that supplier."""
    old = Supplier("old", "Nord\u200blicht Handel AG", ("Nordlicht",))
    registry().put(old, history.entry("old", history.IMPORTED, "ops", old.name))
    assert [s.supplier_id for s in registry().all()] == ["old"]
    found = name_match(registry(), "Nordlicht Handel AG")
    assert found is not None and found[1].supplier_id == "old"
    assert proposed("Nordlicht Handel").status == "conflict"


@pytest.mark.parametrize(
    "name",
    [
        "Blauwald Logistik",  # one letter more: rapidfuzz says 93 against the alias
        "Walblau Spedition GmbH",
        "Nordlicht Handel AG",
        "Atelier Rivière SARL",
        "Müller Straßenbau GmbH",
        "Ελληνική Ναυτιλιακή ΑΕ",  # Greek words, each of one script
        "株式会社トヨタ",  # Han and Katakana in one word: Japanese
        "Tokyo株式会社",  # Latin with Han: TR39's highly restrictive allows it
        "شرکت می\u200cخواهم",  # a zero-width non-joiner inside a Persian word is writing
    ],
)
def test_an_honest_other_name_is_what_rapidfuzz_says(stack: Stack, name: str) -> None:
    """No false conflict: a name that is not a look-alike is a conflict exactly when the plain
    rapidfuzz rule (token-sort ratio of the folded names, legal forms aside) says so."""
    import_suppliers(registry(), REGISTERED, "ops")
    plain = _name_key(name)
    registered = ("Blauwal Hafenlogistik GmbH", "Blauwal", "Blauwal Logistik")
    rapidfuzz_says = any(fuzz.token_sort_ratio(plain, _name_key(r)) >= 90 for r in registered)
    p = proposed(name)
    assert (p.status == "conflict") == rapidfuzz_says, p.conflict
    assert rapidfuzz_says == (name == "Blauwald Logistik")


def test_the_matcher_names_the_registered_supplier_for_a_lookalike(stack: Stack) -> None:
    import_suppliers(registry(), REGISTERED, "ops")
    for printed in ("BIauwaI", "\u0412lauwal GmbH", "BLAUWAL HAFENLOGIST\u0406K", "Blauwa1"):
        found = name_match(registry(), printed)
        assert found is not None and found[1].supplier_id == "blauwal", printed
    assert name_match(registry(), "Nordlicht Handel AG") is None


def test_the_skeleton_is_read_back_from_the_table_in_its_direction() -> None:
    """`names._prototypes` reads confusables.txt's direction back from the package's symmetric
    table by the order its generator appended entries: every prototype with several sources
    must come right after its first source, or the reading is wrong (a new table version)."""
    table: dict[str, list[str]] = {}
    for key, entries in confusables_data.items():
        table.setdefault(key.replace("\u200e", ""), []).extend(
            e["c"].replace("\u200e", "") for e in entries
        )
    order = {key: n for n, key in enumerate(table)}
    prototypes = [k for k, v in table.items() if len(set(v)) > 1 or len(k) > 1]
    assert len(prototypes) > 1500
    for p in prototypes:
        assert order[p] == min(order[s] for s in set(table[p])) + 1, p
    # Unicode's own mappings, as confusables.txt has them.
    assert names.skeleton("\u0412") == "B" and names.skeleton("I") == "l"
    assert names.skeleton("0") == "O" and names.skeleton("m") == "rn"
    assert names.skeleton("\u05ad") == "\u0596"  # an isolated pair: the source is the first
    assert names.skeleton("paypal") == names.skeleton("p\u0430yp\u0430l")


# The registry's names: words of letters, maybe a legal form.
WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=4, max_size=9).map(
    str.capitalize
)
NAME = st.tuples(
    st.lists(WORD, min_size=1, max_size=3).map(" ".join),
    st.sampled_from(["", " GmbH", " Ltd", " SARL", " AG", " Inc."]),
).map("".join)
HIDDEN = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u202e\u2066\u200e\u2069"


def lookalikes(char: str) -> list[str]:
    """What Unicode's confusables table lists for `char` (its prototype, or the characters
    whose prototype it is), as printable text."""
    found = [e["c"].replace("\u200e", "") for e in confusables_data.get(char, [])]
    return [c for c in found if c and all(unicodedata.category(x) != "Cc" for x in c)]


@st.composite
def disguised(draw: st.DrawFn, name: str) -> str:
    out: list[str] = []
    for char in name:
        choices = lookalikes(char)
        swap: bool = bool(choices) and draw(st.booleans())
        out.append(draw(st.sampled_from(choices)) if swap else char)
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(HIDDEN)))
    return "".join(out)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), name=NAME)
def test_any_disguise_of_a_registered_name_is_a_conflict(
    stack: Stack, data: st.DataObject, name: str
) -> None:
    store = registry()
    supplier = Supplier.parse({"supplierId": "registered", "name": name})
    store.put(supplier, history.entry(supplier.supplier_id, history.IMPORTED, "ops", name))
    try:
        disguise = data.draw(disguised(name), label="disguise")
        p = proposed(disguise)
        assert p.status == "conflict", (name, disguise, p.conflict)
    finally:
        store.remove(supplier.supplier_id, "ops")
