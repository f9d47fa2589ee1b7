"""The edges of a learned profile's trust (`docflow/suppliers/profile.py`) and of the hook's
reconciliation (`docflow/suppliers/hook.py` `_reconciled`): net + tax = total within a cent,
never a euro; the confirmations a field needs; the misses that suspend it. Each test names the
boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from typing import Any

import pytest

from docflow.extract.base import PageInput
from docflow.extract.rules_engine.calibration import load_table, probability
from docflow.extract.rules_engine.layout import from_text
from docflow.settings import load_settings
from docflow.suppliers import profile
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.hook import (
    _printed_after_own_label,
    _profile_confidence,
    _reconciled,
    consult,
)
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_VAT
from tests.support.aws import Stack

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


def test_the_profile_fills_a_total_only_where_net_plus_tax_reaches_it_within_a_cent(
    stack: Stack,
) -> None:
    """Through `consult`: a total the rules did not read is the profile's only where the
    rules' net and tax add up to it within 0.01."""
    store = SupplierStore(load_settings().supplier_table)
    import_suppliers(store, f"id,name,vat\nblauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT}\n")
    page = PageInput(page=1, text=PAGE, engine="textlayer", confidence=100.0)
    entry = profile.learn_entry([from_text(1, PAGE)], "total_amount", "1190.00")
    assert entry is not None
    store.update_profile(
        "blauwal", lambda p: {"fields": {"total_amount": {**entry, "confirmed": 2}}}
    )

    def read(net: str, tax: str) -> dict[str, dict[str, Any]]:
        return {
            "net_amount": {"value": net, "confidence": 0.9, "page": 1, "box": None},
            "tax_amount": {"value": tax, "confidence": 0.9, "page": 1, "box": None},
        }

    for net, tax in (("1000.00", "190.00"), ("1000.00", "189.99"), ("1000.01", "190.00")):
        out = consult(store, [page], read(net, tax), list(NAMES))
        assert out.fields["total_amount"]["source"] == "profile", (net, tax)
        assert out.fields["total_amount"]["value"] == "1190.00"
    for net, tax in (("1000.00", "189.98"), ("1000.00", "190.02"), ("999.00", "190.00")):
        out = consult(store, [page], read(net, tax), list(NAMES))
        assert "total_amount" not in out.fields, (net, tax)


ENTRY = {"label": "Belegkennung", "region": [0.4, 0.4, 0.6, 0.5], "page": 1, "shape": r"E\d{13}"}


def test_two_entries_agree_on_label_shape_and_page_and_absence_only_with_absence() -> None:
    assert profile.agrees(ENTRY, {**ENTRY, "region": [0, 0, 1, 1]})  # the region may move
    assert not profile.agrees(ENTRY, {**ENTRY, "label": "Rechnungsnummer"})
    assert not profile.agrees(ENTRY, {**ENTRY, "shape": r"E\d{12}"})
    assert not profile.agrees(ENTRY, {**ENTRY, "page": 2})
    assert not profile.agrees({**ENTRY, "page": 2}, ENTRY)
    # An entry without a page is on page 1, on either side.
    paged = {k: v for k, v in ENTRY.items() if k != "page"}
    assert profile.agrees(paged, ENTRY) and profile.agrees(ENTRY, paged)
    assert not profile.agrees(paged, {**ENTRY, "page": 2})
    assert not profile.agrees({**ENTRY, "page": 2}, paged)
    absent = {"absent": True}
    assert profile.agrees(absent, {"absent": True, "label": "x"})
    assert not profile.agrees(absent, ENTRY) and not profile.agrees(ENTRY, absent)
    assert not profile.agrees({**ENTRY, "absent": False}, absent)


def test_a_streak_keeps_its_start_and_a_repeat_adds_one() -> None:
    one = profile.updated({}, "run-1", {"n": ENTRY}, {})
    assert one is not None and one["fields"]["n"] == {
        **ENTRY,
        "confirmed": 1,
        "misses": 0,
        "suspended": False,
        "since": "run-1",
    }
    two = profile.updated(one, "run-2", {"n": ENTRY}, {"n": "hit"})
    assert two is not None
    assert (two["fields"]["n"]["confirmed"], two["fields"]["n"]["since"]) == (2, "run-1")
    # An entry written before counts existed: its count starts from 0, its streak from "".
    old = {"fields": {"n": dict(ENTRY)}, "runs": []}
    three = profile.updated(old, "run-3", {"n": ENTRY}, {"n": ""})
    assert three is not None
    assert (three["fields"]["n"]["confirmed"], three["fields"]["n"]["since"]) == (1, "")
    assert three["runs"] == ["run-3"]


def test_a_field_not_located_keeps_where_it_was_learned() -> None:
    one = profile.updated({}, "run-1", {"n": ENTRY}, {})
    assert one is not None
    kept = profile.updated(one, "run-2", {"n": None}, {})
    assert kept is not None
    entry = kept["fields"]["n"]
    assert {k: entry[k] for k in ENTRY} == ENTRY  # type: ignore[literal-required]
    assert entry["confirmed"] == 2
    # Never located at all: nothing to keep, no entry made.
    assert profile.updated({}, "run-1", {"n": None}, {}) == {"fields": {}, "runs": ["run-1"]}


def test_one_miss_does_not_suspend_and_a_suspended_entry_stays_so_until_confirmed() -> None:
    one = profile.updated({}, "run-1", {"n": ENTRY}, {})
    assert one is not None
    missed = profile.updated(one, "run-2", {"n": None}, {"n": "miss"})
    assert missed is not None and missed["fields"]["n"]["suspended"] is False
    assert missed["fields"]["n"]["misses"] == 1
    # Suspended by the profile as stored (two misses from before), a miss keeps it so.
    stored = {"fields": {"n": {**ENTRY, "suspended": True, "misses": 0, "confirmed": 3}}}
    still = profile.updated(stored, "run-3", {"n": None}, {"n": "miss"})
    assert still is not None and still["fields"]["n"]["suspended"] is True
    # Any outcome but "miss" (a hit, none read) confirms it and restores it.
    for outcome in ({"n": "hit"}, {"n": ""}, {}):
        back = profile.updated(stored, "run-4", {"n": ENTRY}, outcome)
        assert back is not None and back["fields"]["n"]["suspended"] is False, outcome
        assert (back["fields"]["n"]["confirmed"], back["fields"]["n"]["since"]) == (1, "run-4")


def test_the_profile_remembers_the_last_fifty_runs() -> None:
    p: dict = {}
    for n in range(profile.KEEP_RUNS + 1):
        p = profile.updated(p, f"run-{n}", {}, {}) or p
    assert len(p["runs"]) == 50 and p["runs"][0] == "run-1"
    assert profile.updated(p, "run-0", {}, {}) is not None  # forgotten: applied again
    assert profile.updated(p, "run-50", {}, {}) is None


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


def located(ocr: float | None, page: int = 1) -> profile.Located:
    return profile.Located("E2026000000017", "Belegkennung", [0.1, 0.1, 0.2, 0.12], page, ocr=ocr)


def evidence(ocr: float, scanned: bool, agree: int) -> dict[str, Any]:
    """What a profile read is, for the shipped calibration (hook.py `_profile_confidence`)."""
    return {
        "source": "label",
        "ocr": round(ocr, 3),
        "scanned": scanned,
        "score": round(0.97 * ocr, 4),
        "agree": agree,
    }


@pytest.mark.parametrize("name", ["invoice_number", "total_amount"])
def test_a_profile_reads_confidence_is_the_calibrations_for_a_labelled_read(name: str) -> None:
    table = load_table()
    text = _profile_confidence(name, located(None), {1: 1.0}, agreed=False)
    assert text == probability(name, evidence(1.0, False, 1), table)
    agreed = _profile_confidence(name, located(None), {1: 1.0}, agreed=True)
    assert agreed == probability(name, evidence(1.0, False, 2), table)
    if name == "invoice_number":  # the total's table gives agreement no weight
        assert agreed != text
    # A scanned page: the value's own words' OCR (plus 0.04, at most 1), else the page's.
    words = _profile_confidence(name, located(0.91234), {1: 0.5}, agreed=False)
    assert words == probability(name, evidence(0.95234, True, 1), table)
    capped = _profile_confidence(name, located(0.99), {1: 1.0}, agreed=False)
    assert capped == probability(name, evidence(1.0, True, 1), table)
    page = _profile_confidence(name, located(None, page=2), {1: 1.0, 2: 0.8765}, agreed=False)
    assert page == probability(name, evidence(0.8765, True, 1), table)
    unknown = _profile_confidence(name, located(None, page=3), {1: 0.5}, agreed=False)
    assert unknown == text  # a page with no factor is a text layer's


def test_a_value_after_its_own_label_needs_the_labels_cell_and_an_exact_label() -> None:
    assert _printed_after_own_label({"source": "label", "position": 0.95, "label": 1.0})
    assert not _printed_after_own_label({"source": "label", "position": 0.94, "label": 1.0})
    assert not _printed_after_own_label({"source": "label", "position": 0.95, "label": 0.99})
    assert not _printed_after_own_label({"source": "title", "position": 1.0, "label": 1.0})
    assert not _printed_after_own_label({"source": "label", "label": 1.0})  # no position
    assert not _printed_after_own_label({"source": "label", "position": 1.0})  # no label
    assert not _printed_after_own_label({})
