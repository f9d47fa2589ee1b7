"""The edges of a learned profile's trust (`docflow/suppliers/trust.py`), of its reading
(`docflow/suppliers/profile.py`), of its confidence (`docflow/suppliers/profile_confidence.py`)
and of the layout read's reconciliation (`docflow/suppliers/layout_read.py` `reconciled`): net +
tax = total within a cent, never a euro; the confirmations a field needs; the misses that
suspend it. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from typing import Any

import pytest

from docflow.extract.rules_engine.layout import from_text
from docflow.suppliers import profile, profile_confidence, trust
from docflow.suppliers.layout_read import Trust, _filled_amounts
from docflow.suppliers.layout_read import printed_after_own_label as _printed_after_own_label
from docflow.suppliers.layout_read import reconciled as _reconciled
from tests.suppliers.papers import BLAUWAL_VAT

NAMES = ("net_amount", "tax_amount", "total_amount")


def amounts(net: Any, tax: Any, total: Any, **more: Any) -> dict[str, dict[str, Any]]:
    return {n: {"value": v, **more} for n, v in zip(NAMES, (net, tax, total), strict=True)}


def test_net_plus_tax_is_the_total_within_a_cent_and_no_more() -> None:
    """The tolerance's edge: 0.01 either way reconciles, 0.02 does not (a tolerance of 1.00
    would let a profile supply a total a euro off)."""
    assert _reconciled(amounts("100.00", "19.00", "119.00"))
    assert _reconciled(amounts("100.00", "19.00", "119.01"))
    assert _reconciled(amounts("100.00", "19.00", "118.99"))
    assert not _reconciled(amounts("100.00", "19.00", "119.02"))
    assert not _reconciled(amounts("100.00", "19.00", "118.98"))
    assert not _reconciled(amounts("100.00", "19.00", "120.00"))
    assert not _reconciled(amounts("100.00", "19.00", "118.00"))
    # Numbers as the engine writes them, and as JSON numbers.
    assert _reconciled(amounts(100, 19.0, "119.00"))


def test_an_amount_derived_missing_or_unreadable_reconciles_nothing() -> None:
    for name in NAMES:
        derived = amounts("100.00", "19.00", "119.00")
        derived[name]["derived"] = True
        assert not _reconciled(derived), name
        missing = amounts("100.00", "19.00", "119.00")
        del missing[name]
        assert not _reconciled(missing), name
        for bad in ("n/a", None, {"v": 1}):
            odd = amounts("100.00", "19.00", "119.00")
            odd[name]["value"] = bad
            assert not _reconciled(odd), (name, bad)
    assert _reconciled(amounts("100.00", "19.00", "119.00", derived=False))


PAGE = f"""Blauwal Hafenlogistik GmbH
USt-IdNr.: {BLAUWAL_VAT}
RECHNUNG
Belegkennung: E2026000000017
Nettobetrag: 1.000,00 EUR
MwSt: 190,00 EUR
Gesamtbetrag: 1.190,00 EUR"""


def test_the_profile_fills_a_total_only_where_net_plus_tax_reaches_it_within_a_cent() -> None:
    """Through `_filled_amounts` (what `apply_layout` lets a trusted entry supply): a total the
    rules did not read is the profile's only where the rules' net and tax add up to it within
    0.01, and only from a trusted entry (min_confirmations 2: two reviews, one graded hit)."""
    pages = [from_text(1, PAGE)]
    entry = profile.learn_entry(pages, "total_amount", "1190.00")
    assert entry is not None
    trusted: Any = {**entry, "confirmed": 2, "graded": {"hits": 1}}
    entries = {"total_amount": trusted}

    def read(net: str, tax: str) -> dict[str, dict[str, Any]]:
        return {"net_amount": {"value": net}, "tax_amount": {"value": tax}}

    for net, tax in (("1000.00", "190.00"), ("1000.00", "189.99"), ("1000.01", "190.00")):
        got = _filled_amounts(read(net, tax), pages, entries, list(NAMES), Trust())
        assert got == {"total_amount"}, (net, tax)
    for net, tax in (("1000.00", "189.98"), ("1000.00", "190.02"), ("999.00", "190.00")):
        assert not _filled_amounts(read(net, tax), pages, entries, list(NAMES), Trust())
    # One graded hit short of trust: the entry supplies nothing, reconciled or not.
    short: Any = {"total_amount": {**trusted, "graded": {"hits": 0}}}
    assert not _filled_amounts(read("1000.00", "190.00"), pages, short, list(NAMES), Trust())


ENTRY: Any = {
    "label": "Belegkennung",
    "region": [0.4, 0.4, 0.6, 0.5],
    "page": 1,
    "shape": r"E\d{13}",
}


def test_two_entries_agree_on_label_shape_and_page_and_absence_only_with_absence() -> None:
    assert trust.agrees(ENTRY, {**ENTRY, "region": [0, 0, 1, 1]})  # the region may move
    assert not trust.agrees(ENTRY, {**ENTRY, "label": "Rechnungsnummer"})
    assert not trust.agrees(ENTRY, {**ENTRY, "shape": r"E\d{12}"})
    assert not trust.agrees(ENTRY, {**ENTRY, "page": 2})
    assert not trust.agrees({**ENTRY, "page": 2}, ENTRY)
    # An entry without a page is on page 1, on either side.
    paged: Any = {k: v for k, v in ENTRY.items() if k != "page"}
    assert trust.agrees(paged, ENTRY) and trust.agrees(ENTRY, paged)
    assert not trust.agrees(paged, {**ENTRY, "page": 2})
    assert not trust.agrees({**ENTRY, "page": 2}, paged)
    absent: Any = {"absent": True}
    assert trust.agrees(absent, {"absent": True, "label": "x"})
    assert not trust.agrees(absent, ENTRY) and not trust.agrees(ENTRY, absent)
    assert not trust.agrees({**ENTRY, "absent": False}, absent)


def test_a_streak_keeps_its_start_and_a_repeat_adds_one() -> None:
    one = trust.updated({}, "run-1", {"n": ENTRY}, {})
    assert one is not None and one["fields"]["n"] == {
        **ENTRY,
        "confirmed": 1,
        "misses": 0,
        "suspended": False,
        "since": "run-1",
        "graded": {},
        "reviewers": [],
    }
    two = trust.updated(one, "run-2", {"n": ENTRY}, {"n": "hit"})
    assert two is not None
    assert (two["fields"]["n"]["confirmed"], two["fields"]["n"]["since"]) == (2, "run-1")
    # An entry written before counts existed: its count starts from 0, its streak from "".
    old: Any = {"fields": {"n": dict(ENTRY)}, "runs": []}
    three = trust.updated(old, "run-3", {"n": ENTRY}, {"n": ""})
    assert three is not None
    assert (three["fields"]["n"]["confirmed"], three["fields"]["n"]["since"]) == (1, "")
    assert three["runs"] == ["run-3"]


def test_a_field_not_located_keeps_where_it_was_learned() -> None:
    one = trust.updated({}, "run-1", {"n": ENTRY}, {})
    assert one is not None
    kept = trust.updated(one, "run-2", {"n": None}, {})
    assert kept is not None
    entry = kept["fields"]["n"]
    assert {k: entry[k] for k in ENTRY} == ENTRY  # type: ignore[literal-required]
    assert entry["confirmed"] == 2
    # Never located at all: nothing to keep, no entry made.
    assert trust.updated({}, "run-1", {"n": None}, {}) == {"fields": {}, "runs": ["run-1"]}


def test_one_miss_does_not_suspend_and_a_suspended_entry_stays_so_until_confirmed() -> None:
    one = trust.updated({}, "run-1", {"n": ENTRY}, {})
    assert one is not None
    missed = trust.updated(one, "run-2", {"n": None}, {"n": "miss"})
    assert missed is not None and missed["fields"]["n"]["suspended"] is False
    assert missed["fields"]["n"]["misses"] == 1
    # Suspended by the profile as stored (two misses from before), a miss keeps it so.
    stored: Any = {"fields": {"n": {**ENTRY, "suspended": True, "misses": 0, "confirmed": 3}}}
    still = trust.updated(stored, "run-3", {"n": None}, {"n": "miss"})
    assert still is not None and still["fields"]["n"]["suspended"] is True
    # Any outcome but "miss" (a hit, none read) confirms it and restores it.
    for outcome in ({"n": "hit"}, {"n": ""}, {}):
        back = trust.updated(stored, "run-4", {"n": ENTRY}, outcome)
        assert back is not None and back["fields"]["n"]["suspended"] is False, outcome
        assert (back["fields"]["n"]["confirmed"], back["fields"]["n"]["since"]) == (1, "run-4")


def test_the_profile_remembers_the_last_fifty_runs() -> None:
    p: Any = {}
    for n in range(trust.KEEP_RUNS + 1):
        p = trust.updated(p, f"run-{n}", {}, {}) or p
    assert len(p["runs"]) == 50 and p["runs"][0] == "run-1"
    assert trust.updated(p, "run-0", {}, {}) is not None  # forgotten: applied again
    assert trust.updated(p, "run-50", {}, {}) is None


@pytest.mark.parametrize(
    ("printed", "form"),
    [
        ("1.190,00", ",2"),
        ("1,190.00", ".2"),
        ("1190.5", ".1"),
        ("1190,125", "0"),  # three places after the mark: a thousands mark
        ("1.190", "0"),
        ("1190", "0"),
        ("12,3456", "0"),  # four: no decimal mark this module knows
        ("0,99 ", ",2"),
    ],
)
def test_an_amounts_form_is_its_mark_and_one_or_two_places(printed: str, form: str) -> None:
    assert profile.amount_form(printed) == form


def test_an_entry_learned_before_offsets_reads_inside_its_region_with_its_margin() -> None:
    """`_inside`: a value's centre within MARGIN (0.08) of the region, on each side."""
    region = [0.4, 0.4, 0.6, 0.5]
    inside = profile._inside

    def box(cx: float, cy: float) -> list[float]:
        return [cx - 0.01, cy - 0.01, cx + 0.01, cy + 0.01]

    assert inside(box(0.5, 0.45), region)
    for cx, cy in ((0.33, 0.45), (0.67, 0.45), (0.5, 0.33), (0.5, 0.57)):
        assert inside(box(cx, cy), region), (cx, cy)
    for cx, cy in ((0.31, 0.45), (0.69, 0.45), (0.5, 0.31), (0.5, 0.59)):
        assert not inside(box(cx, cy), region), (cx, cy)
    # Exactly at each edge (a box of no width there: its centre is the edge itself) is in.
    left, right = region[0] - profile.MARGIN, region[2] + profile.MARGIN
    top, bottom = region[1] - profile.MARGIN, region[3] + profile.MARGIN
    assert inside([left, 0.45, left, 0.45], region) and inside([right, 0.45, right, 0.45], region)
    assert inside([0.5, top, 0.5, top], region) and inside([0.5, bottom, 0.5, bottom], region)
    # The centre, not a corner: a wide box reaching into the region from outside is out.
    assert not inside([0.0, 0.44, 0.35, 0.46], region)
    assert not inside([0.5, 0.0, 0.52, 0.3], region)


def located(ocr: float | None, page: int = 1, repaired: bool = False) -> profile.Located:
    return profile.Located(
        "E2026000000017", "Belegkennung", [0.1, 0.1, 0.2, 0.12], page, ocr=ocr, repaired=repaired
    )


def hit(n: int) -> Any:
    return {"graded": {"hits": n}}


def test_a_reads_mode_is_text_only_on_a_text_layer_and_scan_low_under_its_edge() -> None:
    """`mode_of`: no OCR of its own and a page factor of 1 is text; OCR at LOW_OCR (0.8) is a
    scan, a hair under it scan-low; the words' own OCR before the page's."""
    mode = profile_confidence.mode_of
    assert mode(located(None), 1.0) == "text"
    assert mode(located(None), 0.9999) == "scan"
    assert mode(located(None), 0.8) == "scan" and mode(located(None), 0.7999) == "scan-low"
    assert mode(located(0.8), 0.1) == "scan" and mode(located(0.7999), 1.0) == "scan-low"


def test_a_reads_cells_count_hits_up_to_two_and_a_repair_its_own() -> None:
    """`hits_bucket`: 0, 1, then 2+ from two graded hits; `cell_keys`: most specific first, a
    repaired read only in repaired cells."""
    assert [profile_confidence.hits_bucket(hit(n)) for n in (0, 1, 2, 3)] == ["0", "1", "2+", "2+"]
    keys = profile_confidence.cell_keys("invoice_number", located(None), hit(1), True, 1.0)
    assert keys == ["id|text|1|agree", "id|text|1", "id|text"]
    alone = profile_confidence.cell_keys("total_amount", located(0.5), hit(2), False, 1.0)
    assert alone[0].endswith("|scan-low|2+|alone")
    fixed = profile_confidence.cell_keys(
        "invoice_number", located(0.9, repaired=True), hit(0), True, 1.0
    )
    assert fixed == ["id|scan|0|agree|repaired", "id|scan|repaired"]
    # A repaired amount (given only where net + tax = total holds) falls back to the amounts'
    # own cells after its repaired ones.
    amount = profile_confidence.cell_keys(
        "total_amount", located(0.9, repaired=True), hit(0), False, 1.0
    )
    assert amount == [
        "amount|scan|0|alone|repaired",
        "amount|scan|repaired",
        "amount|scan|0|alone",
        "amount|scan|0",
        "amount|scan",
    ]


def test_a_fields_kind_is_party_for_the_issuer_its_own_kind_or_an_id() -> None:
    kind = profile_confidence.kind_of
    assert kind("vendor_name") == "party"
    assert (kind("total_amount"), kind("due_date"), kind("invoice_number")) == (
        "amount",
        "date",
        "id",
    )
    assert kind("a_field_no_declaration_names") == "id"


def test_a_reads_confidence_is_its_own_cell_in_the_table_it_is_given() -> None:
    """`confidence`: the field's kind and whether the rules agreed pick the cell, in the table
    passed (the shipped one only when none is)."""
    table: Any = {"cells": {"amount|text|0|agree": [10, 10]}}
    read = located(None)
    assert profile_confidence.confidence("total_amount", read, hit(0), True, 1.0, table) == round(
        11 / 12, 4
    )
    assert profile_confidence.confidence("total_amount", read, hit(0), False, 1.0, table) == 0.5
    assert profile_confidence.confidence("invoice_number", read, hit(0), True, 1.0, table) == 0.5


def test_a_cell_speaks_from_ten_reads_and_an_unseen_read_is_even() -> None:
    """`probability`: the first cell with MIN_CELL (10) reads gives (right+1)/(total+2); a cell
    of 9 is passed over; none: UNSEEN (0.5)."""
    keys = ["a", "b"]
    assert profile_confidence.probability(keys, {"cells": {"a": [9, 10], "b": [0, 50]}}) == round(
        10 / 12, 4
    )
    assert profile_confidence.probability(keys, {"cells": {"a": [9, 9], "b": [0, 50]}}) == round(
        1 / 52, 4
    )
    assert profile_confidence.probability(keys, {"cells": {"a": [9, 9]}}) == 0.5
    assert profile_confidence.probability(keys, {}) == profile_confidence.UNSEEN == 0.5
    assert profile_confidence.from_counts(0, 0) == 0.5


def test_a_value_after_its_own_label_needs_the_labels_cell_and_an_exact_label() -> None:
    assert _printed_after_own_label({"source": "label", "position": 0.95, "label": 1.0})
    assert not _printed_after_own_label({"source": "label", "position": 0.94, "label": 1.0})
    assert not _printed_after_own_label({"source": "label", "position": 0.95, "label": 0.99})
    assert not _printed_after_own_label({"source": "title", "position": 1.0, "label": 1.0})
    assert not _printed_after_own_label({"source": "label", "label": 1.0})  # no position
    assert not _printed_after_own_label({"source": "label", "position": 1.0})  # no label
    assert not _printed_after_own_label({})
