"""Issue 59, pure: a layout field is trusted on what it predicted, never on what it was told.

Its shadow reads graded against the person's values (hits, misses, the last outcome); trust
needs `min_confirmations - 1` graded hits in the agreeing streak (and, where asked, distinct
people); an established record (five graded hits) is suspended by a disagreeing review, never
replaced, until an operator resets it. Property-tested over what a reviewer (or an attacker
with a careless reviewer) can vary: where each review locates the field and what it approves.
"""

from __future__ import annotations

from typing import Any, cast

from hypothesis import example, given, settings
from hypothesis import strategies as st

from docflow.suppliers import trust
from docflow.suppliers.shapes import Profile, ProfileEntry

HERE = cast(
    "ProfileEntry",
    {"label": "Belegkennung", "region": [0, 0, 1, 1], "page": 1, "shape": r"E\d{13}"},
)
ELSEWHERE = cast("ProfileEntry", {**HERE, "label": "Rechnungsnummer"})


def _review(
    p: Profile, n: int, entry: ProfileEntry | None, outcome: str = "", who: str = "ap@x"
) -> Profile:
    new = trust.updated(p, f"run-{n}", {"invoice_number": entry}, {"invoice_number": outcome}, who)
    assert new is not None
    return new


def _field(p: Profile) -> ProfileEntry:
    return p["fields"]["invoice_number"]


def test_grading_compares_values_as_what_they_are() -> None:
    assert trust.grade("invoice_number", "e2026000000017", "E2026000000017") == trust.HIT
    assert trust.grade("invoice_number", "E2026000000017", "E2026000000099") == trust.MISS
    assert trust.grade("total_amount", "1190.0", "1190.00") == trust.HIT
    assert trust.grade("vendor_name", "Blauwal  Hafenlogistik gmbh", "Blauwal Hafenlogistik GmbH")
    assert trust.grade("po_number", "", "") == trust.HIT  # it said the layout prints none
    assert trust.grade("po_number", "", "PO-1") == trust.MISS
    assert trust.grade("due_date", "2026-03-01", "") == trust.MISS  # a value nobody kept
    assert trust.grade("due_date", None, "2026-03-01") == ""  # nothing read: nothing graded


def test_two_reviews_are_not_enough_without_a_graded_hit() -> None:
    """Before: two agreeing reviews made a field trusted, whatever the profile would have read.
    Now the second must find the profile's own read right."""
    p = _review({}, 1, HERE)
    assert not trust.trusted(_field(p), 2) and trust.trusted(_field(p), 1)
    told = _review(p, 2, HERE)  # located again, but no shadow read graded
    assert _field(told)["confirmed"] == 2 and not trust.trusted(_field(told), 2)
    missed = _review(p, 2, None, trust.MISS)  # the shadow read was wrong
    assert not trust.trusted(_field(missed), 2)
    hit = _review(p, 2, HERE, trust.HIT, "c@x")
    assert trust.trusted(_field(hit), 2)
    graded = _field(hit)["graded"]
    assert (graded["hits"], graded["misses"], graded["last"], graded["run"]) == (
        1,
        0,
        "hit",
        "run-2",
    )
    # Three confirmations need two hits.
    assert not trust.trusted(_field(hit), 3)
    assert trust.trusted(_field(_review(hit, 3, HERE, trust.HIT)), 3)


def test_distinct_reviewers_count_people_not_reviews() -> None:
    p = _review({}, 1, HERE, who="ap@x")
    one = _review(p, 2, HERE, trust.HIT, who="AP@x ")
    assert trust.trusted(_field(one), 2) and not trust.trusted(_field(one), 2, 2)
    two = _review(p, 2, HERE, trust.HIT, who="c@x")
    assert trust.trusted(_field(two), 2, 2)
    assert _field(two)["reviewers"] == ["ap@x", "c@x"]


def _established(hits: int = trust.ESTABLISHED) -> Profile:
    p = _review({}, 0, HERE)
    for n in range(1, hits + 1):
        p = _review(p, n, HERE, trust.HIT)
    return p


def test_a_disagreeing_review_suspends_an_established_record_and_an_operator_resets_it() -> None:
    young = _established(trust.ESTABLISHED - 1)
    moved = _review(young, 99, ELSEWHERE, trust.MISS)
    assert _field(moved)["label"] == "Rechnungsnummer" and _field(moved)["confirmed"] == 1
    old = _established()
    held = _review(old, 99, ELSEWHERE, trust.MISS)
    entry = _field(held)
    assert entry["label"] == "Belegkennung" and entry["suspended"]
    assert entry["suspendedWhy"] == trust.BY_STREAK
    assert trust.newly_suspended(old, held) == ["invoice_number"]
    # No review restores it, agreeing or not: an operator decides.
    for n, where in enumerate((HERE, ELSEWHERE), start=100):
        again = _review(held, n, where, trust.HIT)
        assert _field(again) == entry
    cleared = trust.reset(held, "invoice_number")
    assert cleared is not None and "invoice_number" not in cleared["fields"]
    assert trust.reset(cleared, "invoice_number") is None
    relearned = _review(cleared, 200, ELSEWHERE)
    assert _field(relearned)["label"] == "Rechnungsnummer"


def test_two_misses_suspend_until_a_person_confirms() -> None:
    p = _review(_review({}, 1, HERE), 2, None, trust.MISS)
    p = _review(p, 3, None, trust.MISS)
    assert _field(p)["suspended"] and _field(p)["suspendedWhy"] == trust.BY_MISSES
    restored = _review(p, 4, HERE)
    assert not _field(restored)["suspended"] and _field(restored)["confirmed"] == 1
    assert "suspendedWhy" not in _field(restored)


reviews = st.lists(
    st.tuples(st.sampled_from(["here", "elsewhere", "none"]), st.sampled_from(["hit", "miss", ""])),
    max_size=14,
)


@settings(max_examples=300, deadline=None)
@given(history=reviews, needed=st.integers(min_value=1, max_value=4))
# Established, then two misses suspend it, then a review elsewhere would have restored it
# there: the restore of an established record does not move it either.
@example(history=[("here", "hit")] * 5 + [("none", "miss")] * 2 + [("elsewhere", "")], needed=2)
# Established, two misses, one confirmation where it was (which once wiped the graded record),
# then a review elsewhere: it suspends, it does not move.
@example(
    history=[("here", "hit")] * 5
    + [("here", "miss")] * 2
    + [("here", "hit"), ("elsewhere", "hit")],
    needed=1,
)
# Established elsewhere, suspended by its misses, then a review locating it back here with
# one more miss: it once began a new streak here, moving an established place.
@example(
    history=[("elsewhere", "miss")]
    + [("elsewhere", "hit")] * 5
    + [("elsewhere", "miss"), ("here", "miss")],
    needed=1,
)
def test_trust_is_earned_by_hits_and_an_established_place_never_moves(
    history: list[tuple[str, str]], needed: int
) -> None:
    """Whatever reviews come, in whatever order: a trusted field has `needed - 1` graded hits
    in its streak, and once its record is established, no review moves where it reads."""
    places: dict[str, Any] = {"here": HERE, "elsewhere": ELSEWHERE, "none": None}
    p: Profile = _review({}, 0, HERE)
    pinned: ProfileEntry | None = None
    for n, (where, outcome) in enumerate(history, start=1):
        p = _review(p, n, places[where], outcome)
        entry = _field(p)
        if trust.trusted(entry, needed):
            assert trust.hits(entry) >= needed - 1 and entry["confirmed"] >= needed
            assert not entry["suspended"]
        if pinned is not None:
            assert {k: entry.get(k) for k in trust.WHERE} == pinned
        elif trust.established(entry) and not entry["suspended"]:
            pinned = cast("ProfileEntry", {k: entry.get(k) for k in trust.WHERE})


def test_a_label_ocr_misread_a_letter_of_is_the_same_place() -> None:
    """A scan's review locates the field after `Data scadenza pagamcnto`: the same label, so
    it confirms the streak (it started a new one, and suspended an established record)."""
    here = cast("ProfileEntry", {**HERE, "label": "Data scadenza pagamento"})
    misread = cast("ProfileEntry", {**HERE, "label": "Data scadenza pagamcnto"})
    assert trust.agrees(here, misread)
    assert not trust.agrees(here, {**HERE, "label": "Data documento"})
    assert not trust.agrees({**HERE, "label": "IVA 21%"}, {**HERE, "label": "IVA 27%"})
    base = _review({}, 0, here)
    for n in range(1, trust.ESTABLISHED + 1):
        base = _review(base, n, here, trust.HIT)
    after = trust.updated(base, "scan-1", {"invoice_number": misread}, {"invoice_number": "hit"})
    assert after is not None and not _field(after)["suspended"]
    assert _field(after)["confirmed"] == _field(base)["confirmed"] + 1
