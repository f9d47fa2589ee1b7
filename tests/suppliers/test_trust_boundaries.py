"""The edges of a layout profile's trust (`docflow/suppliers/trust.py`), each test naming the
boundary it guards (bench/README.md, "Mutation testing"): what counts as one place (`agrees`),
one value (`same_value`) and one label (`same_label`); how a graded read is recorded (`_graded`:
which count moves, when and by which run); what `trusted` makes of an entry with no count; what
one review does to the fields beside a suspended one (`updated`); and which suspensions the
operators are told of (`newly_suspended`)."""

from __future__ import annotations

from typing import Any

from docflow.suppliers import trust
from docflow.suppliers.shapes import Graded

AT = "2026-12-08T10:00:00Z"
PLACE: Any = {"label": "Belegkennung", "shape": r"E\d{13}", "page": 1}


def test_a_place_is_its_label_shape_and_page_and_none_is_none() -> None:
    absent: Any = {"absent": True}
    assert trust.agrees(absent, absent)
    assert not trust.agrees(absent, PLACE) and not trust.agrees(PLACE, absent)
    assert trust.agrees(PLACE, {**PLACE, "region": [0.1, 0.2, 0.3, 0.4]})
    for other in ({"label": "Rechnungsnr."}, {"shape": r"E\d{12}"}, {"page": 2}):
        assert not trust.agrees(PLACE, {**PLACE, **other}), other
        assert not trust.agrees({**PLACE, **other}, PLACE), other
    # An entry that says the layout prints none is no place, wherever its label was seen.
    seen: Any = {**PLACE, "absent": True}
    assert not trust.agrees(seen, PLACE) and not trust.agrees(PLACE, seen)
    assert trust.agrees(seen, absent) and trust.agrees(absent, seen)
    # Entries learned before labels had neither: the same shape on the same page agrees.
    bare: Any = {"shape": "date", "page": 1}
    assert trust.agrees(bare, dict(bare))
    assert not trust.agrees(bare, {**bare, "label": "Datum"})
    assert not trust.agrees({**bare, "label": "Datum"}, bare)


def test_a_constant_is_its_value_folded_and_nothing_else() -> None:
    """The issuer's name: the same name however it is cased agrees; another name, or
    an entry that reads a place instead of a constant, does not (even one whose label and shape
    the constant's entry also carries)."""
    name: Any = {"value": "Kranich Druck GmbH"}
    assert trust.agrees(name, {"value": "KRANICH druck gmbh"})
    assert not trust.agrees(name, {"value": "Kranich Druck AG"})
    both: Any = {**PLACE, "value": "Kranich Druck GmbH"}
    assert not trust.agrees(both, PLACE) and not trust.agrees(PLACE, both)
    assert not trust.agrees(name, {}) and not trust.agrees({}, name)


def test_values_compare_as_what_they_are() -> None:
    assert trust.same_value("total_amount", "1190.0", "1190.00")
    assert not trust.same_value("total_amount", "n/a", "n/a")  # no number: never the same
    assert trust.same_value("vendor_name", "Société  Générale", "SOCIETE GENERALE")
    # Only a name is folded: an id's inner spacing and accents are its own.
    assert not trust.same_value("invoice_number", "AB  12", "ab 12")
    assert not trust.same_value("invoice_number", "Fé-1", "FE-1")
    assert trust.same_value("invoice_number", " ab-12 ", "AB-12")


def test_a_label_is_the_same_from_a_ratio_of_ninety_up() -> None:
    assert trust.same_label("abcdefghij", "abcdefghix")  # ratio 90.0 exactly
    assert not trust.same_label("abcdefghij", "abcdefghxy")  # 80.0


def test_a_graded_read_moves_one_count_and_says_when_and_by_which_run() -> None:
    old = Graded(hits=2, misses=1, last="miss", at="2026-12-01T00:00:00Z", run="r1")
    hit = trust._graded(old, trust.HIT, "r2", AT)
    assert hit == Graded(hits=3, misses=1, last="hit", at=AT, run="r2")
    miss = trust._graded(old, trust.MISS, "r3", AT)
    assert miss == Graded(hits=2, misses=2, last="miss", at=AT, run="r3")
    assert trust._graded(old, "", "r4", AT) == old  # nothing read: nothing graded
    assert trust._graded(Graded(), trust.MISS, "r5", AT)["misses"] == 1


def test_an_entry_with_no_count_is_not_trusted() -> None:
    assert not trust.trusted({}, 1)
    assert not trust.trusted({"graded": {"hits": 3}}, 1)
    assert trust.trusted({"confirmed": 1}, 1)


def _profile(**fields: Any) -> Any:
    return {"fields": fields, "runs": []}


def _confirmed(hits: int, **more: Any) -> Any:
    return {**PLACE, "confirmed": hits + 1, "misses": 0, "suspended": False,
            "graded": {"hits": hits, "misses": 0}, "reviewers": [], **more}  # fmt: skip


def test_a_review_records_its_run_and_time_on_every_field_it_grades() -> None:
    profile = _profile(invoice_number=_confirmed(1))
    after = trust.updated(
        profile, "r9", {"invoice_number": PLACE}, {"invoice_number": trust.HIT}, "ap@x", AT
    )
    assert after is not None
    graded = after["fields"]["invoice_number"]["graded"]
    assert (graded["hits"], graded["at"], graded["run"]) == (2, AT, "r9")
    # A review that says no time records none.
    untimed = trust.updated(profile, "r11", {"invoice_number": PLACE}, {"invoice_number": "hit"})
    assert untimed is not None and untimed["fields"]["invoice_number"]["graded"]["at"] == ""
    # A streak begun anew starts an empty record, whatever the review's outcome.
    moved = {**PLACE, "label": "Vorgang"}
    after = trust.updated(profile, "r10", {"invoice_number": moved}, {"invoice_number": "hit"})
    assert after is not None and after["fields"]["invoice_number"]["graded"] == Graded()


def test_a_review_that_suspends_an_established_field_records_it_and_goes_on_to_the_next() -> None:
    """Two fields, the first (by name) established and now located elsewhere: it is suspended
    for the streak with the review's grade on its record, and the second is still learned."""
    profile = _profile(due_date=_confirmed(trust.ESTABLISHED), invoice_number=_confirmed(1))
    moved = {**PLACE, "label": "Vorgang"}
    learned = {"due_date": moved, "invoice_number": PLACE}
    outcomes = {"due_date": trust.MISS, "invoice_number": trust.HIT}
    after = trust.updated(profile, "r7", learned, outcomes, "ap@x", AT)
    assert after is not None
    due = after["fields"]["due_date"]
    assert (due["suspended"], due["suspendedWhy"]) == (True, trust.BY_STREAK)
    assert due["graded"]["misses"] == 1 and due["graded"]["run"] == "r7"
    assert due["graded"]["at"] == AT
    number = after["fields"]["invoice_number"]
    assert number["confirmed"] == 3 and number["graded"]["hits"] == 2
    # Suspended for the streak, it waits for an operator; the field after it still learns.
    again = trust.updated(after, "r8", learned, outcomes, "ap@x", AT)
    assert again is not None
    assert again["fields"]["due_date"] == due
    assert again["fields"]["invoice_number"]["confirmed"] == 4


def test_a_miss_confirms_nothing_and_adds_no_reviewer() -> None:
    profile = _profile(invoice_number=_confirmed(1, reviewers=["ap@x"]))
    after = trust.updated(
        profile, "r2", {"invoice_number": None}, {"invoice_number": trust.MISS}, "other@x", AT
    )
    assert after is not None
    entry = after["fields"]["invoice_number"]
    assert (entry["confirmed"], entry["reviewers"], entry["misses"]) == (2, ["ap@x"], 1)
    hit = trust.updated(
        profile, "r3", {"invoice_number": PLACE}, {"invoice_number": trust.HIT}, "Other@X", AT
    )
    assert hit is not None and hit["fields"]["invoice_number"]["reviewers"] == ["ap@x", "other@x"]


def test_a_field_restored_elsewhere_than_it_was_begins_a_new_streak() -> None:
    """Suspended by two misses, then a person confirms it at another place: not a restoring
    confirmation (that must be where it was), a new streak with an empty record."""
    suspended = _confirmed(1, misses=2, suspended=True, suspendedWhy=trust.BY_MISSES)
    moved = {**PLACE, "label": "Vorgang"}
    after = trust.updated(
        _profile(invoice_number=suspended), "r5", {"invoice_number": moved}, {}, "ap@x", AT
    )
    assert after is not None
    entry = after["fields"]["invoice_number"]
    assert (entry["label"], entry["confirmed"], entry["graded"]) == ("Vorgang", 1, Graded())
    assert not entry["suspended"] and entry["since"] == "r5"


def test_only_a_new_suspension_for_a_streak_is_told() -> None:
    streak = {"suspended": True, "suspendedWhy": trust.BY_STREAK}
    misses = {"suspended": True, "suspendedWhy": trust.BY_MISSES}
    before: Any = _profile(a=streak, b=misses, c={}, e={})
    after: Any = _profile(a=streak, b=streak, c=misses, d=streak, e={})
    assert trust.newly_suspended(before, after) == ["b", "d"]
    assert trust.newly_suspended({"runs": []}, after) == ["a", "b", "d"]  # type: ignore[typeddict-item]
    assert trust.newly_suspended(after, before) == []


def test_a_field_restored_where_it_was_records_the_review_s_grade() -> None:
    suspended = _confirmed(3, misses=2, suspended=True, suspendedWhy=trust.BY_MISSES)
    after = trust.updated(
        _profile(invoice_number=suspended),
        "r6",
        {"invoice_number": PLACE},
        {"invoice_number": trust.HIT},
        "ap@x",
        AT,
    )
    assert after is not None
    entry = after["fields"]["invoice_number"]
    assert (entry["confirmed"], entry["suspended"], entry["misses"]) == (1, False, 0)
    assert entry["graded"] == Graded(hits=4, misses=0, last="hit", at=AT, run="r6")


def test_a_field_never_located_is_skipped_and_the_next_still_learned() -> None:
    after = trust.updated(
        _profile(), "r1", {"due_date": None, "invoice_number": PLACE}, {}, "ap@x", AT
    )
    assert after is not None
    assert list(after["fields"]) == ["invoice_number"]
