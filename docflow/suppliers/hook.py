"""Where extraction consults the registry and the learned layouts: one call from the extract
step, after the engine.

    ids on the page (checked)  ->  whose IBANs (ownership.py)  ->  which layout (match.py)
      ->  which supplier (match.py)  ->  vendor_name from the registry, currency by default
      ->  the layout's profile: a shadow read of every field, the trusted ones' values
          (layout_read.py)

A field this changes says so: `"source": "registry"` (and `"printed"`, what the page said) or
`"source": "profile"`. What this adds to the step's answer is small and masked:
`supplier` (who, matched how; `{"status": "unknown"}` when no registered supplier matched),
`layout` (`{"status": "matched", "layoutId", "score", "issuer"}`, or the status alone:
`"ambiguous"`, `"none"`, `"withheld"` (the page's ids name a supplier its name denies, or
another than the layout was taught under) or `"data"` (an e-invoice's fields are its
data's)), `ibans` (masked, whose, why), `bank` (the bank-details
check: `bank.py`, on every account the account reader finds, in any printed form, and on what
the pages ask for), `taxIds` (checked ids found outside the customer's block, the review
page's "add this supplier" prefill), `profileFields` (the fields the layout's profile gave),
and `shadow` (what the profile read of every field it knows: the run keeps it for the learn
step to grade, and it never reaches the summary a reviewer is shown).

A checked id names the registered supplier only when the page agrees: the issuer name read
with confidence is the supplier's name or an alias, or, where no such name was read, the
page prints the supplier's name. Otherwise the printed name stands, both names go to a
person (`supplier-name-disagrees`), and nothing of the profile gives a value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from docflow.document import Check
from docflow.document.shown import FieldValue, LayoutShown, RegistryShown, SupplierShown, TaxIdShown
from docflow.extract.base import Evidence, PageInput
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers.bank import BankCheck
from docflow.suppliers.data_evidence import Declared
from docflow.suppliers.ids import FoundId, masked_iban
from docflow.suppliers.layout_read import ProfileRead, Trust, apply_layout
from docflow.suppliers.layouts import Layout, LayoutStore
from docflow.suppliers.match import (
    LayoutMatch,
    Match,
    evidence_for,
    find_layout,
    issuer_tax_ids,
    match_by_id,
    match_supplier,
    name_agrees,
)
from docflow.suppliers.payee import check_bank, judged_accounts
from docflow.suppliers.store import SupplierStore

REGISTRY = 1.0  # a name from a checked id's supplier
DEFAULT_CURRENCY = 0.95  # the supplier's currency where the page names none
# An issuer name read at least this sure is the page's word on who issued it: a checked id
# registered to another name does not overrule it (a shared or mistyped id, a forgery).
CONFIDENT_NAME = 0.8


class ConsultedDetail(TypedDict, total=False):
    """How each layout read was judged, and the unsure readings a trusted record of printing
    none dropped (`layout_read.LayoutRead`)."""

    profileReads: dict[str, ProfileRead]
    profileDropped: list[str]


@dataclass
class Consulted:
    fields: dict[str, FieldValue]
    checks: list[Check] = field(default_factory=list)
    shown: RegistryShown = field(default_factory=RegistryShown)
    bank: BankCheck | None = None
    # For the step's S3 record only (never a checkpoint): how each layout read was judged.
    detail: ConsultedDetail = field(default_factory=ConsultedDetail)
    # Fields a trusted layout says it never prints (an `unreadable` label is no value lost).
    settled: set[str] = field(default_factory=set)


def _ocr(page: PageInput) -> float:
    return 1.0 if page.engine == "textlayer" else max(0.0, min(1.0, page.confidence / 100 + 0.04))


def _shown_match(match: Match, certain: bool) -> SupplierShown:
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


def _name_disagrees(match: Match, printed: str) -> Check:
    _kind, _, value = match.key.partition(":")
    shown = masked_iban(value) if match.by == "iban" else value
    return Check(
        "supplier-name-disagrees",
        f"the page's issuer is {printed!r}, but {match.by} {shown} is registered "
        f"to {match.supplier.name!r}: a person says which it is",
        "vendor_name",
    )


def _look_alike() -> Check:
    return Check(
        "supplier-ambiguous",
        "the page's layout matches two or more learned layouts (one invoicing "
        "software) and none of their own lines tells which: a person says whose it is",
        "vendor_name",
    )


def _confident_name(fields: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The issuer name the engine read with confidence, if any: the page's word on who
    issued it."""
    vendor = fields.get("vendor_name") or {}
    printed = vendor.get("value")
    confident = float(vendor.get("confidence", 0.0)) >= CONFIDENT_NAME
    return str(printed) if printed and confident else None


def _layout_shown(found: LayoutMatch, read: Layout | None, from_data: bool) -> LayoutShown:
    if from_data:
        return {"status": "data"}
    if found.layout is not None and read is None:
        return {"status": "withheld"}
    if found.ambiguous:
        return {"status": "ambiguous"}
    if found.layout is None:
        return {"status": "none"}
    return {
        "status": "matched",
        "layoutId": found.layout.layout_id,
        "score": found.score,
        "issuer": found.layout.issuer,
    }


def consult(
    store: SupplierStore | None,
    pages: Sequence[PageInput],
    fields: Mapping[str, FieldValue],
    names: Sequence[str],
    evidence: Mapping[str, Evidence] | None = None,
    *,
    trust: Trust | None = None,
    declared: Declared | None = None,
    hold_unknown: bool = False,
) -> Consulted:
    """What the registry and the learned layouts say about this page; `evidence`: the
    engine's evidence record per field (where each value was read), which decides whether a
    value a layout says it never prints was printed this time; `trust`: when a layout's
    field is trusted, and each field's threshold (`layout_read.Trust`, from the rules file);
    `declared`: the ids and payee IBANs an e-invoice's data states (`data_evidence.py`), taken
    before the page's, and its fields come from that data: no layout reads the page;
    `hold_unknown`: `[suppliers] unknown_payee = "hold"` (the bank check's `holds`)."""
    trust = trust or Trust()
    out = Consulted({k: v.copy() for k, v in fields.items()})
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
    said = _confident_name(fields)
    found = LayoutMatch()
    if store is not None and not from_data:
        # A checked id the page's name agrees with names the supplier whose layouts it may be.
        by_id = match_by_id(store, tax_ids, ibans)
        sure = by_id is not None and name_agrees(by_id.supplier, said, layouts)
        linked = by_id.supplier.supplier_id if by_id is not None and sure else None
        found = find_layout(LayoutStore(store.table, store.ddb), layouts, linked)
    if found.ambiguous:
        out.checks.append(_look_alike())
    match = None
    if store is not None:
        match = match_supplier(store, tax_ids, ibans, printed, layouts, said, found)
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
            "evidence": evidence_for(match, tax_ids, ibans, layouts, said, found),
        }
    elif store is not None:
        out.shown["supplier"] = {"status": "unknown"}
    layout = _readable(found, match, certain)
    if store is not None:
        out.shown["layout"] = _layout_shown(found, layout, from_data)
    # The IBANs, as the privacy rule counts them (route.issuer_iban_privacy); every account
    # the bank check saw is in `bank`.
    out.shown["ibans"] = [i.shown() for i in ibans if i.kind == "iban"]
    out.shown["taxIds"] = _shown_ids(tax_ids)
    # Every account an e-invoice's data names is a payee there, an IBAN or not (data_evidence.py).
    out.bank = check_bank(store, match, declared.payees(ibans), names, judged, hold_unknown)
    out.shown.update({"bank": out.bank.shown()} if out.bank is not None else {})
    if match is not None and certain:
        _from_registry(out, match, names)
    if from_data:
        return out  # the fields are the data's: a layout of the printed page adds nothing
    if layout is not None:
        _read_layout(out, layout, pages, layouts, names, evidence or {}, trust)
    _no_supplier(out, names)
    return out


def _read_layout(
    out: Consulted,
    layout: Layout,
    pages: Sequence[PageInput],
    layouts: Sequence[Page],
    names: Sequence[str],
    evidence: Mapping[str, Evidence],
    trust: Trust,
) -> None:
    """The layout's profile on the page (`layout_read.apply_layout`): its values and checks
    into `out`, its shadow read kept for the learn step, how each read was judged for the
    step's S3 record."""
    factors = {p.page: _ocr(p) for p in pages}
    entries = layout.profile.get("fields") or {}
    read = apply_layout(out.fields, layouts, entries, names, factors, evidence, trust)
    out.checks.extend(read.checks)
    out.settled = set(read.settled)
    out.shown["profileFields"] = read.given
    out.shown["shadow"] = read.shadow
    out.detail["profileReads"] = read.reads
    if read.dropped:
        out.detail["profileDropped"] = read.dropped


def _shown_ids(tax_ids: Sequence[FoundId]) -> list[TaxIdShown]:
    return [
        TaxIdShown(kind=t.kind, value=t.value, valid=t.valid)
        for t in dict((t.key, t) for t in tax_ids).values()
    ][:10]


def _readable(found: LayoutMatch, match: Match | None, certain: bool) -> Layout | None:
    """The matched layout, unless the page's checked id names a supplier the page's name
    denies (nothing is read on a page whose issuer is in doubt), or the layout was taught
    under another registered supplier than the one the page's ids name."""
    layout = found.layout
    if layout is None or match is None or not match.certain:
        return layout
    if not certain:
        return None
    if layout.supplier_id and layout.supplier_id != match.supplier.supplier_id:
        return None
    return layout


def _from_registry(out: Consulted, match: Match, names: Sequence[str]) -> None:
    """A supplier the page's checked id (or a layout taught under it) names: its registered
    name, and its currency where the page names none."""
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


def _no_supplier(out: Consulted, names: Sequence[str]) -> None:
    """An invoice finalizes unreviewed only with a supplier: an issuer name read, or a
    registered supplier the page confirms."""
    if "vendor_name" in names and not (out.fields.get("vendor_name") or {}).get("value"):
        out.checks.append(
            Check(
                "no-supplier",
                "no issuer name was read and no registered supplier is confirmed by the page",
                "vendor_name",
            )
        )
