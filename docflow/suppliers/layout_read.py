"""A matched layout's profile read on a new page: a shadow read of every field it knows, and
the values its trusted fields give.

The shadow read (`LayoutRead.shadow`: field -> the value the profile reads, "" where it says
the layout prints none, None where it could not read) is made before any person sees the
document, for every entry however little trusted, and kept in the run (the extract step's
checkpoint, never the summary a reviewer is shown): the person's final values grade it
(`docflow.suppliers.trust.grade`, in the learn step).

What the profile gives (`LayoutRead.given`), field by field:

- a trusted entry's read fills a field the rules did not read, confirms the rules' same
  reading, or, where the rules read another value with less confidence than the field's
  threshold, takes its place (the rules were unsure, the layout's record is not); its
  confidence is the layout read's own (`profile_confidence`), never the labelled reading's;
- where the rules (or the registry) read another value with confidence, the field drops to
  DISAGREE and a `profile-disagrees` check sends both to a person, trusted or not;
- a trusted entry that reads nothing where the rules read nothing either is a field the
  layout always printed and this page does not show: a `profile-missing` check asks a person
  (absence of evidence is not a pass);
- an amount only confirms the rules' reading where a check holds it (net + tax = total, or
  the printed tax rate times the net is the tax), and fills one the rules could not read only
  where, with it, the three reconcile: amounts change from one invoice to the next and their
  form holds them loosely; an amount read repaired (OCR's letters put back to digits) counts
  only where, with it, the three reconcile;
- an entry that says the layout prints none of a field (`absent`) doubts a rules reading of
  it, unless the value sat after a label of its own field; trusted, it drops an unsure one.

Every check the rules' values meet runs after this on the profile's values too
(`docflow.extract.checks`: amounts that do not reconcile, a due date before the invoice
date, a missing field, a table that does not add up).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, TypedDict

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.extract.base import Evidence
from docflow.extract.declarations.kinds import AMOUNT
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers import profile as profiles
from docflow.suppliers import profile_confidence
from docflow.suppliers.shapes import ProfileEntry
from docflow.suppliers.trust import same_value, trusted

DISAGREE = 0.5  # the rules and the profile read different values: a person decides
SAME_CELL = 0.95  # the rules engine's position score for a value beside its label
AMOUNTS = ("net_amount", "tax_amount", "total_amount")


@dataclass(frozen=True)
class Trust:
    """The rules' word on when a profile field is trusted (`[suppliers] min_confirmations`,
    `[audit] distinct_reviewers`) and each field's threshold (a rules reading under it is
    unsure: a trusted profile read takes its place)."""

    min_confirmations: int = 2
    distinct_reviewers: int = 1
    thresholds: Mapping[str, float] = field(default_factory=dict)

    def trusts(self, entry: ProfileEntry) -> bool:
        return trusted(entry, self.min_confirmations, self.distinct_reviewers)

    def sure(self, name: str, reading: Mapping[str, Any]) -> bool:
        """The rules' (or the registry's) reading is confident: at its field's threshold, or
        from the registry. With no threshold known, every reading counts as confident."""
        if reading.get("source") == "registry":
            return True
        return float(reading.get("confidence", 0.0)) >= self.thresholds.get(name, 0.0)


class ProfileRead(TypedDict):
    """How one profile read was judged: its calibration cells (`profile_confidence.cell_keys`),
    whether the rules read the same, whether OCR letters were repaired."""

    cells: list[str]
    agreed: bool
    repaired: bool


@dataclass
class LayoutRead:
    shadow: dict[str, str | None] = field(default_factory=dict)
    given: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    # Per field read: its calibration cells (`profile_confidence.cell_keys`), whether the
    # rules read the same and whether OCR letters were repaired: the extract step's S3 record
    # keeps it (why each profile value got its confidence), and the bench fits on it.
    reads: dict[str, ProfileRead] = field(default_factory=dict)
    # Unsure rules readings of fields the layout's trusted record says it never prints.
    dropped: list[str] = field(default_factory=list)
    # The fields the layout's trusted record says it never prints: a label the rules found
    # with no value after it (`unreadable`) is then no value lost.
    settled: set[str] = field(default_factory=set)


def _check(name: str, code: str, message: str) -> Check:
    return Check(code, message, name)


def printed_after_own_label(evidence: Evidence) -> bool:
    """The value sat after a label of its own field, in the label's cell or the next one, the
    label read exactly (`Your order AB321`): the page prints the field this time. A value
    under a table's column header, after a title or a misread label is no such proof."""
    return (
        evidence.get("source") == "label"
        and float(evidence.get("position", 0.0)) >= SAME_CELL
        and float(evidence.get("label", 0.0)) >= 1.0
    )


def reconciled(fields: Mapping[str, Mapping[str, Any]]) -> bool:
    """Net + tax = total, all three read from the page (none derived)."""
    try:
        net, tax, total = (Decimal(str(fields[n]["value"])) for n in AMOUNTS)
    except (KeyError, InvalidOperation, TypeError):
        return False
    if any(fields[n].get("derived") for n in AMOUNTS):
        return False
    return abs(net + tax - total) <= Decimal("0.01")


def checked_amounts(
    fields: Mapping[str, Mapping[str, Any]], evidence: Mapping[str, Evidence]
) -> set[str]:
    """The amounts a check holds: all three where net + tax = total; the net and the tax
    where the rate printed on the tax line times the net is the tax (a layout that prints no
    total: the rules engine's `tax_rate` evidence, `docflow.extract.rules_engine.crosscheck`)."""
    if reconciled(fields):
        return set(AMOUNTS)
    if (evidence.get("tax_amount") or {}).get("tax_rate") == "match":
        return {"net_amount", "tax_amount"}
    return set()


def _filled_amounts(
    fields: Mapping[str, Mapping[str, Any]],
    pages: Sequence[Page],
    entries: Mapping[str, ProfileEntry],
    names: Sequence[str],
    trust: Trust,
) -> set[str]:
    """The amounts the rules did not read that trusted entries read where, with them, net +
    tax = total: those the profile may supply."""
    missing = [n for n in AMOUNTS if n in names and n not in fields]
    if not missing:
        return set()
    combined = {n: dict(fields[n]) for n in AMOUNTS if n in fields}
    for name in missing:
        entry = entries.get(name)
        if entry is None or not trust.trusts(entry):
            return set()
        found = profiles.read(pages, name, entry)
        if found is None:
            return set()
        combined[name] = {"value": found.value}
    return set(missing) if reconciled(combined) else set()


def _unheld_amount(
    name: str,
    found: profiles.Located,
    fields: Mapping[str, Mapping[str, Any]],
    unchecked: bool,
    filled: set[str],
) -> bool:
    """An amount read no check holds, which the profile then leaves alone: one the rules did
    not read (or read the same) that no check holds, and one OCR misread and the profile
    repaired, a candidate only, that does not make net + tax = total in the rules' place."""
    if READ_AS.get(name) != AMOUNT or name in filled:
        return False
    if unchecked:
        return True
    return found.repaired and not reconciled({**fields, name: {"value": found.value}})


def _doubt_absent(
    fields: dict[str, FieldValue],
    name: str,
    evidence: Evidence,
    out: LayoutRead,
    entry: ProfileEntry,
    trust: Trust,
) -> None:
    """A layout whose reviews left `name` empty, and the rules read one: a person decides.
    An order number is cited on some invoices of a supplier and not on others: one printed
    after its own label is the page's word against a person's earlier one. Where the layout's
    record of printing none is trusted and the rules' reading is unsure (under its field's
    threshold: a date after some other label, `Fecha de Vencimiento` of a tax authority's
    code), the layout's record stands and the reading is dropped."""
    generic = fields.get(name)
    if not generic or not generic.get("value") or printed_after_own_label(evidence):
        return
    if trust.trusts(entry) and not trust.sure(name, generic):
        del fields[name]
        out.dropped.append(name)
        return
    fields[name] = {**generic, "confidence": min(generic["confidence"], DISAGREE)}
    out.checks.append(
        _check(
            name,
            "profile-disagrees",
            f"{name}: this layout's documents print none (a reviewer left it empty), the "
            f"rules read {generic.get('value')!r}",
        )
    )


def _disagrees(
    name: str, found: profiles.Located, entry: ProfileEntry, generic: Mapping[str, Any]
) -> Check:
    where = f" after {entry['label']!r}" if entry.get("label") else ""
    who = "registry" if generic.get("source") == "registry" else "rules"
    return _check(
        name,
        "profile-disagrees",
        f"{name}: this layout's profile reads {found.value!r}{where}, the {who} read "
        f"{generic.get('value')!r}",
    )


def apply_layout(
    fields: dict[str, FieldValue],
    pages: Sequence[Page],
    entries: Mapping[str, ProfileEntry],
    names: Sequence[str],
    factors: Mapping[int, float],
    evidence: Mapping[str, Evidence],
    trust: Trust,
) -> LayoutRead:
    """Read the layout's profile (`entries`) on `pages`, changing `fields` in place (the
    module's docstring); `factors`: each page's OCR factor (1.0 on a text layer);
    `evidence`: the rules engine's evidence per field."""
    out = LayoutRead()
    checked = checked_amounts(fields, evidence)
    filled = _filled_amounts(fields, pages, entries, names, trust)
    for name, entry in sorted(entries.items()):
        if name not in names or entry.get("suspended"):
            continue
        generic = fields.get(name)
        if entry.get("absent"):
            out.shadow[name] = ""
            if trust.trusts(entry):
                out.settled.add(name)
            _doubt_absent(fields, name, evidence.get(name) or {}, out, entry, trust)
            continue
        found = profiles.read(pages, name, entry)
        out.shadow[name] = found.value if found is not None else None
        if found is None:
            if trust.trusts(entry) and not generic and name not in AMOUNTS:
                out.checks.append(
                    _check(
                        name,
                        "profile-missing",
                        f"{name}: every confirmed document of this layout printed it "
                        f"after {entry.get('label') or 'its place'!r}; this one shows none",
                    )
                )
            continue
        # An amount the rules read is confirmed only where a check holds it (net + tax =
        # total, or the printed rate times the net is the tax); one they could not read is
        # the profile's only where, with it, the three reconcile.
        unchecked = generic is None or (
            name not in checked and same_value(name, str(generic.get("value")), found.value)
        )
        if _unheld_amount(name, found, fields, unchecked, filled):
            continue
        agreed = generic is not None and same_value(name, str(generic.get("value")), found.value)
        factor = factors.get(found.page, 1.0)
        out.reads[name] = {
            "cells": profile_confidence.cell_keys(name, found, entry, agreed, factor),
            "agreed": agreed,
            "repaired": found.repaired,
        }
        # Where the rules (or the registry) read another value with confidence, a person
        # sees both; where they were unsure, a trusted layout's read stands (below).
        if generic and not agreed and (trust.sure(name, generic) or not trust.trusts(entry)):
            fields[name] = {**generic, "confidence": min(generic["confidence"], DISAGREE)}
            out.checks.append(_disagrees(name, found, entry, generic))
            continue
        if not trust.trusts(entry):
            continue  # a shadow read: graded later, it gives nothing now
        if generic and generic.get("source") == "registry":
            continue  # the registry's name stands, and the layout agrees with it
        confidence = profile_confidence.confidence(name, found, entry, agreed, factor)
        if agreed and generic:
            confidence = max(confidence, float(generic.get("confidence", 0)))
        fields[name] = {
            "value": found.value,
            "confidence": round(confidence, 3),
            "page": found.page,
            "box": [round(v, 4) for v in found.box],
            "source": "profile",
            **({"repaired": True} if found.repaired else {}),
        }
        out.given.append(name)
    return out
