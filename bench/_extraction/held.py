"""Why a measured document went to a person: one reason per document, so the next rule is
chosen from counts, not anecdotes (issue 59 item 6).

In this order, the first that applies:

    through                 no stage: finalized with no person
    stage:<name>            a stage other than `fields`, `triage` and `audit` (bank-details,
                            duplicate, privacy, a type's own approval)
    audit                   only the audit's sample
    layout:none             no learned layout matched the page (its issuer not printed as
                            people confirmed it, or its fingerprint not matched)
    layout:<status>         matched ambiguously, or withheld (the page's ids and name
                            disagree, or name another supplier)
    check:<code>            a check on the values failed: amounts that do not reconcile, a due
                            date before the invoice date, the layout and the rules disagreeing,
                            a field the layout always printed and this page does not show
    absent:<field>          a field held for its confidence (low, missing, unreadable) that
                            the layout's record says it never prints (reviewers left it
                            empty): a required one missing still goes to a person
    unchecked:<field>       such an amount the layout read, which no check holds (net + tax =
                            total, or the printed rate): an amount is given only so
    untrusted:<field>       such a field the layout read but does not trust yet (too few
                            graded hits)
    ocr:<field>             such a field on a scan, the layout not reading it at all
    unread:<field>          such a field on a text page, the layout not reading it at all
    other:<codes>           anything else
"""

from __future__ import annotations

from typing import Any

from docflow.suppliers.layout_read import AMOUNTS

PERSON = ("fields", "triage", "audit")
CHECKED = (
    "amounts-disagree",
    "due-before-invoice",
    "profile-disagrees",
    "profile-missing",
    "supplier-name-disagrees",
    "supplier-ambiguous",
    "order-mismatch",
    "ocr-repair",
    "ocr-currency-sign",
    "unread-tax-line",
)
UNSURE = ("low-confidence", "missing", "unreadable")


def held_by(result: dict[str, Any], outcome: dict[str, Any]) -> str:
    """The reason `result` (a measured document's route and checks) went to a person."""
    stages = [str(s) for s in outcome["stages"]]
    if not stages:
        return "through"
    other = [s for s in stages if s not in PERSON]
    if other:
        return f"stage:{other[0]}"
    if stages == ["audit"]:
        return "audit"
    layout = str((result.get("layout") or {}).get("status") or "none")
    if layout != "matched":
        return f"layout:{layout}"
    checks = result.get("checks") or []
    codes = [str(c.get("code")) for c in checks]
    failed = [c for c in codes if c in CHECKED]
    if failed:
        return f"check:{failed[0]}"
    shadow = result.get("shadow") or {}
    judged = result.get("profileReads") or {}
    unsure = [str(c.get("field")) for c in checks if c.get("code") in UNSURE]
    for name in unsure:
        if shadow.get(name) == "":
            return f"absent:{name}"
        if shadow.get(name) is not None and name in AMOUNTS and name not in judged:
            return f"unchecked:{name}"
        if shadow.get(name) is not None:
            return f"untrusted:{name}"
    scanned = any(e.get("scanned") for e in (result.get("evidence") or {}).values())
    for name in unsure:
        return f"{'ocr' if scanned else 'unread'}:{name}"
    return f"other:{','.join(sorted(set(codes))) or '-'}"
