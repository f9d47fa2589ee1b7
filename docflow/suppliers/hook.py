"""Where extraction consults the registry: one call from the extract step, after the engine.

    ids on the page (checked)  ->  whose IBANs (ownership.py)  ->  which supplier (match.py)
      ->  vendor_name from the registry, currency by default  ->  the profile's reads

A field this changes says so: `"source": "registry"` (and `"printed"`, what the page said) or
`"source": "profile"`. What this adds to the step's answer is small and masked:
`supplier` (who, matched how), `ibans` (masked, whose, why), `taxIds` (checked ids found
outside the customer's block, the review page's "add this supplier" prefill), and
`profileFields` (the fields the profile read, which the learn step scores).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docflow.extract.base import PageInput
from docflow.extract.fields import AMOUNT, FIELD_KINDS
from docflow.extract.layout import Page
from docflow.extract.rules import layout_of
from docflow.suppliers import profile as profiles
from docflow.suppliers.ids import masked_iban
from docflow.suppliers.match import Match, issuer_tax_ids, match_supplier
from docflow.suppliers.model import Supplier
from docflow.suppliers.ownership import judge_ibans
from docflow.suppliers.store import SupplierStore

REGISTRY = 1.0  # a name from a checked id's supplier
DEFAULT_CURRENCY = 0.95  # the supplier's currency where the page names none
PROFILE = 0.97  # a value where the profile says, after its label, of its shape
DISAGREE = 0.5  # the rules and the profile read different values: a person decides


@dataclass
class Consulted:
    fields: dict[str, dict[str, Any]]
    checks: list[dict[str, str]] = field(default_factory=list)
    shown: dict[str, Any] = field(default_factory=dict)


def _ocr(page: PageInput) -> float:
    return 1.0 if page.engine == "textlayer" else max(0.0, min(1.0, page.confidence / 100 + 0.04))


def _shown_match(match: Match) -> dict[str, Any]:
    kind, _, value = match.key.partition(":")
    key = f"iban:{masked_iban(value)}" if kind == "iban" else match.key
    return {
        "supplierId": match.supplier.supplier_id,
        "name": match.supplier.name,
        "by": match.by,
        "key": key,
        "score": match.score,
        "certain": match.certain,
    }


def consult(
    store: SupplierStore | None,
    pages: Sequence[PageInput],
    fields: Mapping[str, dict[str, Any]],
    names: Sequence[str],
    unreadable: Collection[str] = (),
) -> Consulted:
    out = Consulted({k: dict(v) for k, v in fields.items()})
    if not pages:
        return out
    layouts = [layout_of(p) for p in pages]
    printed = (fields.get("vendor_name") or {}).get("value")
    tax_ids = issuer_tax_ids(layouts)
    ibans = judge_ibans(layouts, printed)
    match = match_supplier(store, tax_ids, ibans, printed) if store is not None else None
    if match is not None:
        registered = match.supplier.ids.get("iban", ())
        ibans = judge_ibans(layouts, match.supplier.name if match.certain else printed, registered)
        out.shown["supplier"] = _shown_match(match)
    out.shown["ibans"] = [i.shown() for i in ibans]
    out.shown["taxIds"] = [
        {"kind": t.kind, "value": t.value, "valid": t.valid}
        for t in dict((t.key, t) for t in tax_ids).values()
    ][:10]
    if match is None or not match.certain:
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
    factors = {p.page: _ocr(p) for p in pages}
    out.shown["profileFields"] = _apply_profile(out, layouts, supplier, names, unreadable, factors)
    return out


def _apply_profile(
    out: Consulted,
    layouts: Sequence[Page],
    supplier: Supplier,
    names: Sequence[str],
    unreadable: Collection[str],
    factors: Mapping[int, float],
) -> list[str]:
    """Each profile field read where the profile says; the names of those it gave."""
    read: list[str] = []
    for name, entry in sorted((supplier.profile.get("fields") or {}).items()):
        if name not in names or name in unreadable:
            continue  # a value the engine saw and could not read stays a person's to read
        generic = out.fields.get(name)
        if entry.get("absent") and not entry.get("suspended"):
            if generic and generic.get("value"):
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
        if generic is None and FIELD_KINDS.get(name) == AMOUNT:
            # Amounts vary from one invoice to the next and have no shape to hold them to:
            # the profile confirms the rules' reading (checked by reconciliation), never
            # supplies one alone.
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
        confidence = PROFILE * factors.get(found.page, 1.0)
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
