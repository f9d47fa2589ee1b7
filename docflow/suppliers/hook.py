"""Where extraction consults the registry: one call from the extract step, after the engine.

    ids on the page (checked)  ->  whose IBANs (ownership.py)  ->  which supplier (match.py)
      ->  vendor_name from the registry, currency by default  ->  the profile's reads

A field this changes says so: `"source": "registry"` (and `"printed"`, what the page said) or
`"source": "profile"`. What this adds to the step's answer is small and masked:
`supplier` (who, matched how; `{"status": "unknown"}` when no registered supplier matched),
`ibans` (masked, whose, why), `bank` (the bank-details check: `bank.py`, on every account
the account reader finds, in any printed form, and on what the pages ask for), `taxIds` (checked
ids found outside the customer's block, the review page's "add this supplier" prefill), and
`profileFields` (the fields the profile read, which the learn step scores).

A checked id names the registered supplier only when the page agrees: the issuer name read
with confidence is the supplier's name or an alias, or, where no such name was read, the
page prints the supplier's name. Otherwise the printed name stands, both names go to a
person (`supplier-name-disagrees`), and nothing of the profile is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from docflow.extract.base import PageInput
from docflow.extract.declarations.kinds import AMOUNT
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.rules_engine.calibration import load_table, probability
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers import profile as profiles
from docflow.suppliers.bank import BankCheck
from docflow.suppliers.data_evidence import Declared
from docflow.suppliers.ids import masked_iban
from docflow.suppliers.match import (
    Match,
    evidence_for,
    issuer_tax_ids,
    match_supplier,
    name_agrees,
)
from docflow.suppliers.model import Supplier
from docflow.suppliers.payee import check_bank, judged_accounts
from docflow.suppliers.shapes import ProfileEntry
from docflow.suppliers.store import SupplierStore

REGISTRY = 1.0  # a name from a checked id's supplier
DEFAULT_CURRENCY = 0.95  # the supplier's currency where the page names none
PROFILE = 0.97  # a value where the profile says, after its label, of its shape
DISAGREE = 0.5  # the rules and the profile read different values: a person decides
SAME_CELL = 0.95  # the rules engine's position score for a value beside its label
# An issuer name read at least this sure is the page's word on who issued it: a checked id
# registered to another name does not overrule it (a shared or mistyped id, a forgery).
CONFIDENT_NAME = 0.8


@dataclass
class Consulted:
    fields: dict[str, dict[str, Any]]
    checks: list[dict[str, str]] = field(default_factory=list)
    shown: dict[str, Any] = field(default_factory=dict)
    bank: BankCheck | None = None


def _ocr(page: PageInput) -> float:
    return 1.0 if page.engine == "textlayer" else max(0.0, min(1.0, page.confidence / 100 + 0.04))


def _shown_match(match: Match, certain: bool) -> dict[str, Any]:
    kind, _, value = match.key.partition(":")
    key = f"iban:{masked_iban(value)}" if kind == "iban" else match.key
    return {
        "supplierId": match.supplier.supplier_id,
        "name": match.supplier.name,
        "by": match.by,
        "key": key,
        "score": match.score,
        "certain": certain,
    }


def _name_disagrees(match: Match, printed: str) -> dict[str, str]:
    _kind, _, value = match.key.partition(":")
    shown = masked_iban(value) if match.by == "iban" else value
    return {
        "field": "vendor_name",
        "code": "supplier-name-disagrees",
        "message": f"the page's issuer is {printed!r}, but {match.by} {shown} is registered "
        f"to {match.supplier.name!r}: a person says which it is",
    }


def _look_alike(match: Match) -> dict[str, str]:
    return {
        "field": "vendor_name",
        "code": "supplier-ambiguous",
        "message": "the page's layout matches two or more suppliers' (one invoicing software) "
        "and none of their own lines tells which: a person says whose it is",
    }


def consult(
    store: SupplierStore | None,
    pages: Sequence[PageInput],
    fields: Mapping[str, dict[str, Any]],
    names: Sequence[str],
    evidence: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    min_confirmations: int = 2,
    declared: Declared | None = None,
    hold_unknown: bool = False,
) -> Consulted:
    """What the registry says about this page; `evidence`: the engine's evidence record per
    field (where each value was read), which decides whether a value the profile says this
    supplier never prints was printed this time; `min_confirmations`: the agreeing reviews a
    profile field needs before it gives a value (`[suppliers]` in the rules file);
    `declared`: the ids and payee IBANs an e-invoice's data states (`data_evidence.py`), taken
    before the page's, and its fields come from that data: no profile reads the page;
    `hold_unknown`: `[suppliers] unknown_payee = "hold"` (the bank check's `holds`)."""
    out = Consulted({k: dict(v) for k, v in fields.items()})
    from_data = declared is not None
    if not pages and not from_data:
        return out
    # Data with no page (an XML invoice) is still matched and its bank details still checked.
    declared = declared or Declared()
    layouts = [layout_of(p) for p in pages]
    printed = (fields.get("vendor_name") or {}).get("value")
    tax_ids = [*declared.tax_ids, *issuer_tax_ids(layouts)]
    judged = judged_accounts(pages, printed)
    ibans = declared.with_ibans(judged.accounts)
    vendor = fields.get("vendor_name") or {}
    confident = float(vendor.get("confidence", 0.0)) >= CONFIDENT_NAME
    said = str(printed) if printed and confident else None
    match = None
    if store is not None:
        match = match_supplier(store, tax_ids, ibans, printed, layouts, said)
    if match is not None and match.ambiguous:
        out.checks.append(_look_alike(match))
        out.shown["supplier"] = {"status": "ambiguous", "by": "fingerprint"}
        match = None
    certain = False
    if match is not None:
        certain = match.certain and name_agrees(match.supplier, said, layouts)
        if match.certain and not certain and printed:
            out.checks.append(_name_disagrees(match, str(printed)))
        registered = match.supplier.ids.get("iban", ())
        judged = judged_accounts(pages, match.supplier.name if certain else printed, registered)
        ibans = declared.with_ibans(judged.accounts, registered)
        out.shown["supplier"] = {
            **_shown_match(match, certain),
            "evidence": evidence_for(match, tax_ids, ibans, layouts, said),
        }
    elif store is not None and "supplier" not in out.shown:
        out.shown["supplier"] = {"status": "unknown"}
    # The IBANs, as the privacy rule counts them (route.issuer_iban_privacy); every account
    # the bank check saw is in `bank`.
    out.shown["ibans"] = [i.shown() for i in ibans if i.kind == "iban"]
    out.shown["taxIds"] = [
        {"kind": t.kind, "value": t.value, "valid": t.valid}
        for t in dict((t.key, t) for t in tax_ids).values()
    ][:10]
    # Every account an e-invoice's data names is a payee there, an IBAN or not (data_evidence.py).
    out.bank = check_bank(store, match, declared.payees(ibans), names, judged, hold_unknown)
    out.shown.update({"bank": out.bank.shown()} if out.bank is not None else {})
    if match is None or not certain:
        _no_supplier(out, names)
        return out
    supplier = match.supplier
    if "vendor_name" in names:
        old = out.fields.get("vendor_name") or {}
        out.fields["vendor_name"] = {
            "value": supplier.name,
            "confidence": REGISTRY,
            "page": old.get("page", 1),
            "box": old.get("box"),
            "source": "registry",
            "printed": old.get("value"),
        }
    if "currency" in names and "currency" not in out.fields and supplier.currency:
        out.fields["currency"] = {
            "value": supplier.currency,
            "confidence": DEFAULT_CURRENCY,
            "page": 0,
            "box": None,
            "source": "registry",
        }
    elif (found := out.fields.get("currency")) and found.get("value") == supplier.currency:
        # The page's own reading (often a guess from its signs or its country) and the
        # supplier's registered currency agree: two sources, each surer than either.
        found["confidence"] = max(float(found.get("confidence", 0.0)), DEFAULT_CURRENCY)
    if from_data:
        return out  # the fields are the data's: a profile of the printed page adds nothing
    factors = {p.page: _ocr(p) for p in pages}
    out.shown["profileFields"] = _apply_profile(
        out, layouts, supplier, names, factors, evidence or {}, min_confirmations
    )
    return out


def _no_supplier(out: Consulted, names: Sequence[str]) -> None:
    """An invoice finalizes unreviewed only with a supplier: an issuer name read, or a
    registered supplier the page confirms."""
    if "vendor_name" in names and not (out.fields.get("vendor_name") or {}).get("value"):
        out.checks.append(
            {
                "field": "vendor_name",
                "code": "no-supplier",
                "message": "no issuer name was read and no registered supplier is confirmed "
                "by the page",
            }
        )


def _profile_confidence(
    name: str, found: profiles.Located, factors: Mapping[int, float], agreed: bool
) -> float:
    """A profile read is a labelled reading whose label is the supplier's own, confirmed by a
    person: its confidence is what the shipped calibration gives such a reading (a value after
    its label, in its place, of its form), weighed by the OCR confidence of the value's own
    words on a scan (the page's mean where the words carry none), as the rules engine weighs
    its readings; the rules reading the same value is a second label agreeing."""
    scanned = found.ocr is not None or factors.get(found.page, 1.0) < 1.0
    ocr = factors.get(found.page, 1.0) if found.ocr is None else min(1.0, found.ocr + 0.04)
    evidence = {
        "source": "label",
        "position": SAME_CELL,
        "label": 1.0,
        "form": 1.0,
        "ocr": round(ocr, 3),
        "scanned": scanned,
        "score": round(PROFILE * ocr, 4),
        "agree": 2 if agreed else 1,
    }
    return probability(name, evidence, load_table())


def _printed_after_own_label(evidence: Mapping[str, Any]) -> bool:
    """The value sat after a label of its own field, in the label's cell or the next one, the
    label read exactly (`Your order AB321`): the page prints the field this time. A value
    under a table's column header, after a title or a misread label is no such proof."""
    return (
        evidence.get("source") == "label"
        and float(evidence.get("position", 0.0)) >= SAME_CELL
        and float(evidence.get("label", 0.0)) >= 1.0
    )


def _reconciled(fields: Mapping[str, dict[str, Any]]) -> bool:
    """Net + tax = total, all three read from the page (none derived)."""
    try:
        net, tax, total = (
            Decimal(str(fields[n]["value"])) for n in ("net_amount", "tax_amount", "total_amount")
        )
    except (KeyError, InvalidOperation, TypeError):
        return False
    if any(fields[n].get("derived") for n in ("net_amount", "tax_amount", "total_amount")):
        return False
    return abs(net + tax - total) <= Decimal("0.01")


AMOUNTS = ("net_amount", "tax_amount", "total_amount")


def _filled_amounts(
    fields: Mapping[str, dict[str, Any]],
    layouts: Sequence[Page],
    entries: Mapping[str, ProfileEntry],
    names: Sequence[str],
    min_confirmations: int,
) -> set[str]:
    """The amounts the rules did not read that trusted profile entries read where, with
    them, net + tax = total: those the profile may supply."""
    missing = [n for n in AMOUNTS if n in names and n not in fields]
    if not missing:
        return set()
    combined = {n: dict(fields[n]) for n in AMOUNTS if n in fields}
    for name in missing:
        entry = entries.get(name)
        if entry is None or not profiles.trusted(entry, min_confirmations):
            return set()
        found = profiles.read(layouts, name, entry)
        if found is None:
            return set()
        combined[name] = {"value": found.value}
    return set(missing) if _reconciled(combined) else set()


def _apply_profile(
    out: Consulted,
    layouts: Sequence[Page],
    supplier: Supplier,
    names: Sequence[str],
    factors: Mapping[int, float],
    evidence: Mapping[str, Mapping[str, Any]],
    min_confirmations: int,
) -> list[str]:
    """Each trusted profile field read where the profile says; the names of those it gave.

    A field fewer reviews confirmed than `min_confirmations` gives nothing: no value, no
    confidence (one review is one person's word, and what finalizes on it is seen by no one).
    It may still doubt: a rules reading it disagrees with, or one where it says the supplier
    prints none, goes to a person as with a trusted one (the rules' reading alone let a wrong
    value through on the real set, bench/README.md)."""
    read: list[str] = []
    reconciled = _reconciled(out.fields)
    entries = supplier.profile.get("fields") or {}
    filled = _filled_amounts(out.fields, layouts, entries, names, min_confirmations)
    for name, entry in sorted(entries.items()):
        if name not in names:
            continue
        # A label the rules found with no value they could read (`unreadable`) is filled
        # only as any profile read is: after the learned label, inside the learned region, of
        # the learned shape (a smudge has none). Where the rules looked beside the label and
        # the supplier prints its number two lines under it, the profile knows better; an
        # amount is never supplied alone (below).
        generic = out.fields.get(name)
        if entry.get("absent") and not entry.get("suspended"):
            # An order number is cited on some invoices of a supplier and not on others: one
            # printed after its own label is the page's word against one earlier review.
            if (
                generic
                and generic.get("value")
                and not _printed_after_own_label(evidence.get(name) or {})
            ):
                # A person confirmed this supplier prints no such field; the rules read one.
                out.fields[name] = {**generic, "confidence": min(generic["confidence"], DISAGREE)}
                out.checks.append(
                    {
                        "field": name,
                        "code": "profile-disagrees",
                        "message": f"{name}: the supplier's invoices print none (a reviewer "
                        f"left it empty), the rules read {generic.get('value')!r}",
                    }
                )
            continue
        found = profiles.read(layouts, name, entry)
        if found is None:
            continue
        generic = out.fields.get(name)
        # Amounts vary from one invoice to the next and their shape holds them loosely: the
        # profile confirms the rules' reading only where net + tax = total checks it, never
        # supplies one alone (a scan's `27102011.00` read where the total sits is no total).
        # A different amount there still disagrees, below.
        # An amount the rules could not read is the profile's only where, with it, net + tax
        # = total holds (the other two the rules' own, or the profile's).
        unchecked = generic is None or (not reconciled and str(generic["value"]) == found.value)
        if READ_AS.get(name) == AMOUNT and unchecked and name not in filled:
            continue
        if generic and str(generic.get("value")).upper() != found.value.upper():
            out.fields[name] = {**generic, "confidence": min(generic["confidence"], DISAGREE)}
            out.checks.append(
                {
                    "field": name,
                    "code": "profile-disagrees",
                    "message": f"{name}: the supplier's profile reads {found.value!r} after "
                    f"{entry['label']!r}, the rules read {generic.get('value')!r}",
                }
            )
            continue
        if not profiles.trusted(entry, min_confirmations):
            continue  # agreeing, or alone: an untrusted entry adds no confidence
        confidence = _profile_confidence(name, found, factors, agreed=generic is not None)
        if generic:
            confidence = max(confidence, float(generic.get("confidence", 0)))
        out.fields[name] = {
            "value": found.value,
            "confidence": round(confidence, 3),
            "page": found.page,
            "box": [round(v, 4) for v in found.box],
            "source": "profile",
        }
        read.append(name)
    return read
