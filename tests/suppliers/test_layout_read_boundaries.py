"""The edges of the layout read's small judgements (`docflow/suppliers/layout_read.py`), each
test naming the boundary it guards (bench/README.md, "Mutation testing"): when the rules'
reading is sure (at its field's threshold, or the registry's), what `distinct_reviewers`
asks of trust, and what the checks a person reads say (which field, which value, whose)."""

from __future__ import annotations

from typing import Any

from docflow.document import Check
from docflow.suppliers import profile
from docflow.suppliers.layout_read import LayoutRead, Trust, _check, _disagrees, _doubt_absent


def test_a_reading_is_sure_at_its_threshold_or_from_the_registry() -> None:
    trust = Trust(thresholds={"total_amount": 0.9})
    assert trust.sure("total_amount", {"confidence": 0.9})
    assert not trust.sure("total_amount", {"confidence": 0.8999})
    assert not trust.sure("total_amount", {})  # no confidence said: none
    assert trust.sure("total_amount", {"confidence": 0.0, "source": "registry"})
    assert not trust.sure("total_amount", {"confidence": 0.1, "source": "rules"})
    assert trust.sure("due_date", {"confidence": 0.0})  # no threshold known: sure


def test_distinct_reviewers_are_asked_of_trust() -> None:
    entry: Any = {"confirmed": 2, "graded": {"hits": 1}, "reviewers": ["ap@x"]}
    assert Trust(distinct_reviewers=1).trusts(entry)
    assert not Trust(distinct_reviewers=2).trusts(entry)
    assert Trust(distinct_reviewers=2).trusts({**entry, "reviewers": ["ap@x", "cfo@x"]})


def test_a_check_names_its_field_and_says_its_message() -> None:
    assert _check("due_date", "profile-missing", "said") == Check(
        "profile-missing", "said", "due_date"
    )


def test_a_disagreement_says_what_each_read_where_and_whose() -> None:
    found = profile.Located("1190.00", "Gesamtbetrag", [0.1, 0.1, 0.2, 0.12], 1)
    placed: Any = {"label": "Gesamtbetrag"}
    rules = _disagrees("total_amount", found, placed, {"value": "14.00", "source": "rules"})
    assert rules == Check(
        "profile-disagrees",
        "total_amount: this layout's profile reads '1190.00' after 'Gesamtbetrag', "
        "the rules read '14.00'",
        "total_amount",
    )
    registry = _disagrees("total_amount", found, {}, {"value": "14.00", "source": "registry"})
    assert registry.message == (
        "total_amount: this layout's profile reads '1190.00', the registry read '14.00'"
    )


def test_a_reading_the_layout_says_it_never_prints_is_said_to_a_person() -> None:
    fields: Any = {"po_number": {"value": "PO-7", "confidence": 0.97}}
    out = LayoutRead()
    _doubt_absent(fields, "po_number", {}, out, {"absent": True}, Trust())
    assert fields["po_number"]["confidence"] == 0.5
    assert out.checks == [
        Check(
            "profile-disagrees",
            "po_number: this layout's documents print none (a reviewer left it empty), the "
            "rules read 'PO-7'",
            "po_number",
        )
    ]


# A page whose words have boxes (as a reader gives them), and a layout learned on it.
LINES = [
    "Kranich Druck GmbH",
    "RECHNUNG",
    "Belegkennung: E2026000000017",
    "Rechnungsdatum: 04.03.2026",
    "Lieferdatum: 02.03.2026",
]


def _page(lines: list[str]) -> Any:
    from docflow.extract.rules_engine.layout import from_words
    from docflow.readers.base import Word

    words = []
    for i, line in enumerate(lines):
        x, y = 0.08, 0.06 + i * 0.03
        for token in line.split():
            width = 0.0123 * len(token)
            words.append(Word(token, (x, y, x + width, y + 0.015), None))
            x += width + 0.008
    return from_words(1, words)


def _trusted(name: str, value: str) -> Any:
    entry = profile.learn_entry([_page(LINES)], name, value)
    assert entry is not None
    return {**entry, "confirmed": 2, "graded": {"hits": 1}, "reviewers": ["ap@x"]}


def test_a_given_value_says_its_page_box_confidence_and_source_and_its_read_is_kept() -> None:
    from docflow.suppliers import profile_confidence
    from docflow.suppliers.layout_read import apply_layout

    pages = [_page(LINES)]
    entry = _trusted("invoice_number", "E2026000000017")
    found = profile.read(pages, "invoice_number", entry)
    assert found is not None
    for factors, mode in (({}, "text"), ({1: 0.74}, "scan-low")):
        fields: Any = {}
        out = apply_layout(
            fields, pages, {"invoice_number": entry}, ["invoice_number"], factors, {}, Trust()
        )
        factor = factors.get(1, 1.0)
        sure = profile_confidence.confidence("invoice_number", found, entry, False, factor)
        assert fields["invoice_number"] == {
            "value": "E2026000000017",
            "confidence": round(sure, 3),
            "page": 1,
            "box": [round(v, 4) for v in found.box],
            "source": "profile",
        }
        assert all(0 < v < 1 for v in fields["invoice_number"]["box"])
        assert out.reads == {
            "invoice_number": {
                "cells": [f"id|{mode}|1|alone", f"id|{mode}|1", f"id|{mode}"],
                "agreed": False,
                "repaired": False,
            }
        }


def test_an_agreeing_read_keeps_the_surer_confidence_and_a_replacing_one_its_own() -> None:
    from docflow.suppliers import profile_confidence
    from docflow.suppliers.layout_read import apply_layout

    pages = [_page(LINES)]
    entry = _trusted("invoice_number", "E2026000000017")
    found = profile.read(pages, "invoice_number", entry)
    assert found is not None

    def own(agreed: bool) -> float:
        sure = profile_confidence.confidence("invoice_number", found, entry, agreed, 1.0)
        return round(sure, 3)

    assert own(True) < 0.99 and own(False) < 0.98
    for rules, want in (
        ({"value": "E2026000000017", "confidence": 0.99}, 0.99),  # the surer of the two
        ({"value": "E2026000000017"}, own(True)),  # the rules said no figure
    ):
        fields: Any = {"invoice_number": rules}
        apply_layout(fields, pages, {"invoice_number": entry}, ["invoice_number"], {}, {}, Trust())
        assert fields["invoice_number"]["confidence"] == want
    # The rules read another number, under its threshold: the layout's read takes its place
    # with its own figure, not the unsure reading's.
    trust = Trust(thresholds={"invoice_number": 0.99})
    fields = {"invoice_number": {"value": "E2026000000099", "confidence": 0.98}}
    apply_layout(fields, pages, {"invoice_number": entry}, ["invoice_number"], {}, {}, trust)
    assert fields["invoice_number"]["value"] == "E2026000000017"
    assert fields["invoice_number"]["confidence"] == own(False)


def test_a_trusted_field_this_page_does_not_show_asks_a_person_but_an_amount_does_not() -> None:
    from docflow.suppliers.layout_read import apply_layout

    learned = [*LINES, "Faellig am: 18.03.2026", "Gesamtbetrag: 1.190,00 EUR"]
    entries = {
        "due_date": _trusted_on(learned, "due_date", "2026-03-18"),
        "invoice_number": _trusted("invoice_number", "E2026000000017"),
        "total_amount": _trusted_on(learned, "total_amount", "1190.00"),
    }
    given: Any = {}
    out = apply_layout(given, [_page(LINES)], entries, list(entries), {}, {}, Trust())
    assert given["invoice_number"]["value"] == "E2026000000017"  # the next field still reads
    assert out.checks == [
        Check(
            "profile-missing",
            "due_date: every confirmed document of this layout printed it after "
            "'Faellig am'; this one shows none",
            "due_date",
        )
    ]
    untrusted = {n: {**e, "graded": {"hits": 0}} for n, e in entries.items()}
    assert apply_layout({}, [_page(LINES)], untrusted, list(entries), {}, {}, Trust()).checks == []
    read: Any = {"due_date": {"value": "2026-03-18", "confidence": 0.9}}
    assert apply_layout(read, [_page(LINES)], entries, list(entries), {}, {}, Trust()).checks == []


def _trusted_on(lines: list[str], name: str, value: str) -> Any:
    entry = profile.learn_entry([_page(lines)], name, value)
    assert entry is not None, name
    return {**entry, "confirmed": 2, "graded": {"hits": 1}, "reviewers": ["ap@x"]}


def test_a_suspended_field_is_not_read_an_absent_one_reads_empty_and_the_next_still_reads() -> None:
    from docflow.suppliers.layout_read import apply_layout

    pages = [_page(LINES)]
    entries: Any = {
        "currency": {"absent": True, "confirmed": 2, "graded": {"hits": 1}},
        "due_date": {**_trusted("due_date", "2026-03-04"), "graded": {"hits": 0}},
        "invoice_date": {**_trusted("invoice_date", "2026-03-04"), "suspended": True},
        "invoice_number": _trusted("invoice_number", "E2026000000017"),
    }
    fields: Any = {}
    out = apply_layout(fields, pages, entries, list(entries), {}, {}, Trust())
    assert out.shadow["currency"] == ""
    assert out.shadow["due_date"] == "2026-03-04" and "due_date" not in fields  # a shadow read
    assert "invoice_date" not in out.shadow
    assert fields["invoice_number"]["value"] == "E2026000000017"


def test_the_registry_s_name_stands_and_the_next_field_still_reads() -> None:
    from docflow.suppliers.layout_read import apply_layout

    pages = [_page(LINES)]
    entries: Any = {
        "invoice_number": _trusted("invoice_number", "E2026000000017"),
        "vendor_name": {"value": "Kranich Druck GmbH", "confirmed": 2, "graded": {"hits": 1}},
    }
    registry = {"value": "Kranich Druck GmbH", "confidence": 1.0, "source": "registry"}
    fields: Any = {"vendor_name": dict(registry)}
    out = apply_layout(fields, pages, entries, sorted(entries), {}, {}, Trust())
    assert fields["vendor_name"] == registry
    assert out.given == ["invoice_number"]


AMOUNT_LINES = [
    *LINES,
    "Nettobetrag: 1.000,00 EUR",
    "MwSt. 19%: 190,00 EUR",
    "Gesamtbetrag: 1.190,00 EUR",
]
AMOUNTS = ["net_amount", "tax_amount", "total_amount"]


def _amount_entries() -> Any:
    pages = [_page(AMOUNT_LINES)]
    out = {}
    for name, value in zip(AMOUNTS, ("1000.00", "190.00", "1190.00"), strict=True):
        entry = profile.learn_entry(pages, name, value)
        assert entry is not None, name
        out[name] = {**entry, "confirmed": 2, "graded": {"hits": 1}, "reviewers": ["ap@x"]}
    return out


def test_an_amount_agrees_as_a_number_and_its_cells_and_figure_are_an_amount_s(
    monkeypatch: Any,
) -> None:
    """The rules read `1190.0` where the layout reads `1190.00`: the same amount, so the read
    agrees (its cells say so), and its confidence is the agreeing amount cell's, from the
    table in force."""
    from docflow.suppliers import profile_confidence
    from docflow.suppliers.layout_read import apply_layout

    table: Any = {
        "cells": {"amount|text|1|agree": [10, 10], "amount|text|1": [0, 40], "id|text": [0, 40]}
    }
    monkeypatch.setattr(profile_confidence, "load_table", lambda *a, **k: table)
    entries = _amount_entries()
    rules: Any = {
        "net_amount": {"value": "1000.00", "confidence": 0.1},
        "tax_amount": {"value": "190.00", "confidence": 0.1},
        "total_amount": {"value": "1190.0", "confidence": 0.1},
    }
    out = apply_layout(rules, [_page(AMOUNT_LINES)], entries, AMOUNTS, {}, {}, Trust())
    assert out.reads["total_amount"]["agreed"] is True
    assert out.reads["total_amount"]["cells"][0] == "amount|text|1|agree"
    assert rules["total_amount"]["confidence"] == round(11 / 12, 3)
    assert rules["total_amount"]["source"] == "profile"


def test_the_same_amount_no_check_holds_is_left_to_the_rules() -> None:
    """Net and tax do not reach the total: the layout's same reading of it (`1190.0` and
    `1190.00`) is no confirmation, and the field is left as the rules read it."""
    from docflow.suppliers.layout_read import apply_layout

    rules: Any = {
        "net_amount": {"value": "900.00", "confidence": 0.95},
        "total_amount": {"value": "1190.0", "confidence": 0.4},
    }
    entries = {"total_amount": _amount_entries()["total_amount"]}
    out = apply_layout(rules, [_page(AMOUNT_LINES)], entries, AMOUNTS, {}, {}, Trust())
    assert rules["total_amount"] == {"value": "1190.0", "confidence": 0.4}
    assert "total_amount" not in out.reads


def test_a_sure_reading_of_another_value_is_said_to_a_person_under_its_field() -> None:
    from docflow.suppliers.layout_read import apply_layout

    entries = {
        "invoice_date": _trusted("invoice_date", "2026-03-04"),
        "invoice_number": _trusted("invoice_number", "E2026000000017"),
    }
    fields: Any = {"invoice_date": {"value": "2026-04-03", "confidence": 0.99}}
    out = apply_layout(fields, [_page(LINES)], entries, list(entries), {}, {}, Trust())
    assert [(c.code, c.field) for c in out.checks] == [("profile-disagrees", "invoice_date")]
    assert out.checks[0].message.startswith("invoice_date: ")
    assert fields["invoice_number"]["value"] == "E2026000000017"  # the next field still reads


def test_a_value_on_a_page_with_no_word_boxes_gets_its_box_to_four_places() -> None:
    """A page laid out from its text alone (no reader boxes): the value's box is its cell's
    character columns over the widest line, given to four places."""
    from docflow.extract.rules_engine.layout import from_text
    from docflow.suppliers.layout_read import apply_layout

    text = "\n".join([*LINES, "Zahlbar sofort", "Danke"])  # seven lines: sevenths
    entry = profile.learn_entry([from_text(1, text)], "invoice_number", "E2026000000017")
    assert entry is not None
    trusted: Any = {**entry, "confirmed": 2, "graded": {"hits": 1}}
    fields: Any = {}
    apply_layout(fields, [from_text(1, text)], {"invoice_number": trusted}, ["invoice_number"],
                 {}, {}, Trust())  # fmt: skip
    box = fields["invoice_number"]["box"]
    assert box == [round(v, 4) for v in box] and any(round(v, 3) != v for v in box)
