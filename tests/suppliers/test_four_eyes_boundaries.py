"""The edges of four eyes (`docflow/suppliers/four_eyes.py`) and of names as a person sees them
(`docflow/names.py`): an ARN's last part with or without a path, a `[people]` chain three
entries long, a joiner at a word's edge or between two scripts, a character with no name, and
look-alikes that hide behind invisible or full-width characters. Each test names the boundary
it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docflow import names
from docflow.readmodel.table import to_ddb
from docflow.rules.people import People
from docflow.suppliers import proposals
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.four_eyes import approver_problem, person, same_person
from docflow.suppliers.model import Supplier
from docflow.suppliers.proposals import Proposal
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_NAME, BLAUWAL_VAT, OTHER_VAT

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


def test_an_arn_is_known_whole_as_well_as_by_its_last_part() -> None:
    """`_forms` adds an ARN's last part to its whole key and skeleton, it does not replace
    them: an ARN spelled with a look-alike letter (a Cyrillic `а` in `arn`, so no ARN to
    cut a tail from) is still the ARN it looks like."""
    principal = "arn:aws:sts::123456789012:assumed-role/ops/ap@example.com"
    spoofed = "\u0430" + principal[1:]
    assert names.identity_key(spoofed) != names.identity_key(principal)
    assert same_person(principal, spoofed) and same_person(spoofed, principal)
    assert approver_problem(spoofed, principal).startswith("it was proposed by")


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


def test_a_person_of_one_entry_is_that_entry_and_the_search_ends() -> None:
    """The search's end (`group <= found`): once the one entry is merged, found is that
    group, no more and no less, and nothing grows again."""
    alone = People((("a@example.com", ("alice",)),))
    assert person("a@example.com", alone) == frozenset({"a@example.com", "alice"})
    assert person("alice", alone) == frozenset({"a@example.com", "alice"})


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
        (f"\u0628{ZWNJ}\u0628", []),  # the second character: between two letters still
        (f"\u0628{ZWSP}\u0628", [ZWSP]),  # a zero-width space is no joiner in any script
        (f"1{ZWJ}2", [ZWJ]),  # between two digits
        (f"\u0664{ZWNJ}\u0665", [ZWNJ]),  # Arabic-Indic digits: an Arabic script, no letter
        (f"\u0651{ZWJ}\u0651", [ZWJ]),  # marks with no letter to take the script of
        # The letter right before the joiner decides, not the first of the text.
        (f"Ali \u0645\u06cc{ZWNJ}\u062e\u0648", []),
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
        # Every script of a set at once, not only some of them (Latin, Han, Hiragana,
        # Katakana: ソニー株式会社のSony).
        ("Sony\u30bd\u30cb\u30fc\u682a\u5f0f\u4f1a\u793e\u306e", False),
        ("Sony\u5927\u5b78\u3105\u3106", False),  # Latin, Han and Bopomofo
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


# -- proposals: filed once, approved by another person, never merged into the registry ------

NAME = BLAUWAL_NAME
PROPOSER = "ap@example.com"


def proposal(name: str = "Someone Else AG", vat: str = OTHER_VAT, **more: str) -> Proposal:
    pid = proposals.proposal_id(f"d-{name}", "v-1")
    return Proposal(
        pid,
        name,
        {"vat": (vat,)},
        "EUR",
        f"d-{name}",
        "v-1",
        "ap@example.com",
        "2026-12-01",
        **more,
    )


def test_a_proposals_id_is_its_document_versions_and_an_iban_is_shown_masked() -> None:
    assert proposals.proposal_id("d-1", "v-1") == proposals.proposal_id("d-1", "v-1")
    assert proposals.proposal_id("d-1", "v-1") != proposals.proposal_id("d-1", "v-2")
    assert proposals.proposal_id("d-1", "v-1").startswith("p-")
    assert len(proposals.proposal_id("d-1", "v-1")) == 14
    assert proposals.shown_key("iban:DE89370400440532013000") == "iban:DE•••• 3000"
    assert proposals.shown_key("vat:DE812345673") == "vat:DE812345673"
    assert proposals.proposal_pk("p-1") == "PROPOSAL#p-1"


def test_a_proposal_reads_back_as_stored_and_prints_its_ibans_masked() -> None:
    p = replace(proposal(), ids={"vat": (OTHER_VAT,), "iban": ("DE89370400440532013000",)})
    assert Proposal.parse(p.to_json()) == p
    assert p.to_json()["currency"] == "EUR" and p.to_json()["conflict"] is None
    assert p.to_json(masked=True)["ids"] == {"vat": [OTHER_VAT], "iban": ["DE•••• 3000"]}
    assert p.keys == [f"vat:{OTHER_VAT}", "iban:DE89370400440532013000"]
    bare = Proposal.parse({"proposalId": "p-1", "name": "X", "proposedAt": "t"})
    assert (bare.status, bare.ids, bare.currency, bare.proposer) == ("pending", {}, "", "")
    assert bare.to_json()["currency"] is None and bare.to_json()["reason"] is None


def test_each_collision_with_the_registry_is_said(registry: SupplierStore) -> None:
    mixed = Supplier.parse({"name": "Nordli\u0441ht Handel AG", "ids": {"vat": [OTHER_VAT]}})
    assert proposals.conflicts_with(registry, mixed) == (
        "the name mixes scripts in one word ('Nordliсht': Cyrillic, Latin)"
    )
    same_id = Supplier.parse({"supplierId": "blauwal", "name": "Other Name AG"})
    assert proposals.conflicts_with(registry, same_id) == "supplier id 'blauwal' is registered"
    alike = Supplier.parse({"name": "Blauwal Hafenlogistik AG"})
    assert proposals.conflicts_with(registry, alike) == (
        f"the name matches registered supplier 'blauwal' ({NAME}, score 100.0)"
    )
    iban = BLAUWAL_IBAN.replace(" ", "")
    held = Supplier.parse(
        {"name": "Kranich Druck AG", "ids": {"iban": [iban], "vat": [BLAUWAL_VAT]}}
    )
    assert proposals.conflicts_with(registry, held) == (
        f"vat:{BLAUWAL_VAT} belongs to supplier 'blauwal'; iban:DE•••• 3000 belongs to supplier "
        "'blauwal'"
    )
    assert proposals.conflicts_with(registry, Supplier.parse({"name": "Kranich Druck AG"})) == ""


def test_a_proposal_is_filed_once_and_a_collision_is_filed_as_a_conflict(
    registry: SupplierStore,
) -> None:
    p = proposal()
    assert proposals.propose(registry, p) == p
    assert proposals.propose(registry, replace(p, name="Changed AG")) == p  # filed already
    assert proposals.listed(registry) == [p]
    clash = proposal(vat=BLAUWAL_VAT, name="Kranich Druck AG")
    filed = proposals.propose(registry, clash)
    assert (filed.status, filed.conflict) == (
        "conflict",
        f"vat:{BLAUWAL_VAT} belongs to supplier 'blauwal'",
    )
    assert proposals.get(registry, clash.proposal_id) == filed
    # A name no supplier may have: filed as a conflict saying why.
    invisible = proposals.propose(registry, proposal(name="Kranich\u200b Druck AG"))
    assert invisible.status == "conflict" and "U+200B" in invisible.conflict


def test_only_another_person_approves_and_only_a_pending_proposal(
    registry: SupplierStore,
) -> None:
    p = proposals.propose(registry, proposal())
    pid = p.proposal_id
    with pytest.raises(proposals.ProposalNotFound, match=r"^no proposal p-none$"):
        proposals.approve(registry, "p-none", "controller")
    with pytest.raises(
        proposals.ProposalRefused,
        match=rf"^proposal {pid}: it was proposed by ap@example.com: another person must",
    ):
        proposals.approve(registry, pid, "AP@example.com")
    supplier = proposals.approve(registry, pid, "controller")
    assert registry.get(supplier.supplier_id) is not None
    approved = proposals.get(registry, pid)
    assert approved is not None
    assert (approved.status, approved.decided_by) == ("approved", "controller")
    with pytest.raises(proposals.ProposalRefused, match=rf"^proposal {pid} is approved$"):
        proposals.approve(registry, pid, "controller")
    conflict = proposals.propose(registry, proposal(vat=BLAUWAL_VAT, name="Kranich Druck AG"))
    with pytest.raises(
        proposals.ProposalRefused,
        match=rf"^proposal {conflict.proposal_id} is conflict: vat:{BLAUWAL_VAT} belongs to "
        r"supplier 'blauwal'; resolve it by hand$",
    ):
        proposals.approve(registry, conflict.proposal_id, "controller")


def test_a_proposal_that_became_a_conflict_is_marked_so_at_approval(
    registry: SupplierStore,
) -> None:
    p = proposals.propose(registry, proposal(name="Kranich Druck AG"))
    import_suppliers(registry, f"id,name,vat\nkranich,Kranich Druck AG,{OTHER_VAT}\n")
    why = (
        "the name matches registered supplier 'kranich' (Kranich Druck AG, score 100.0); "
        f"vat:{OTHER_VAT} belongs to supplier 'kranich'"
    )
    with pytest.raises(proposals.ProposalRefused) as refused:
        proposals.approve(registry, p.proposal_id, "controller")
    assert str(refused.value) == f"proposal {p.proposal_id} conflicts with the registry: {why}"
    marked = proposals.get(registry, p.proposal_id)
    assert marked is not None and (marked.status, marked.conflict) == ("conflict", why)
    assert registry.get("kranich-druck-ag") is None


def test_a_proposal_filed_before_todays_name_checks_is_marked_a_conflict(
    registry: SupplierStore,
) -> None:
    old = proposal(name="Kranich\u200b Druck AG")
    item = {
        "pk": proposals.proposal_pk(old.proposal_id),
        **{k: v for k, v in old.to_json().items() if v is not None},
        "listing": "PROPOSAL",
        "listedAt": f"{old.proposed_at}#{old.proposal_id}",
    }
    registry.ddb.put_item(TableName=registry.table, Item=to_ddb(item))
    with pytest.raises(
        proposals.ProposalRefused,
        match=rf"^proposal {old.proposal_id} cannot be a supplier: ",
    ):
        proposals.approve(registry, old.proposal_id, "controller")
    marked = proposals.get(registry, old.proposal_id)
    assert marked is not None and marked.status == "conflict" and "U+200B" in marked.conflict


def test_a_proposal_decided_meanwhile_is_said_so(registry: SupplierStore) -> None:
    p = proposals.propose(registry, proposal())
    proposals.reject(registry, p.proposal_id, "controller")
    with pytest.raises(
        proposals.ProposalRefused,
        match=rf"^proposal {p.proposal_id} is rejected: decided meanwhile$",
    ):
        proposals._mark_conflict(registry, p, "late")
    gone = replace(p, proposal_id="p-gone")
    with pytest.raises(proposals.ProposalRefused, match=r"^proposal p-gone is gone: decided"):
        proposals._mark_conflict(registry, gone, "late")


def test_a_rejection_needs_a_principal_and_an_open_proposal(registry: SupplierStore) -> None:
    p = proposals.propose(registry, proposal())
    pid = p.proposal_id
    with pytest.raises(proposals.ProposalNotFound, match=r"^no proposal p-none$"):
        proposals.reject(registry, "p-none", "controller")
    with pytest.raises(
        proposals.ProposalRefused, match=r"^who rejects it\? docflow found no principal to record$"
    ):
        proposals.reject(registry, pid, "  ")
    rejected = proposals.reject(registry, pid, "controller")
    assert (rejected.status, rejected.decided_by, rejected.reason) == (
        "rejected",
        "controller",
        "-",
    )
    with pytest.raises(proposals.ProposalRefused, match=rf"^proposal {pid} is rejected already$"):
        proposals.reject(registry, pid, "controller")
    other = proposals.propose(registry, proposal(name="Kranich Druck AG"))
    said = proposals.reject(registry, other.proposal_id, "controller", "a typo")
    assert said.reason == "a typo"
    # A conflict is open too: it is rejected.
    clash = proposals.propose(registry, proposal(vat=BLAUWAL_VAT, name="Reiher Medien KG"))
    assert proposals.reject(registry, clash.proposal_id, "controller").status == "rejected"
