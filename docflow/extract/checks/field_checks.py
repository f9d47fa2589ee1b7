"""The checks that send extracted fields to a person. Pure: fields in, reasons out.

A reason is a `Check` (the field, a code, a message) with code one of:
    missing             a required field was not found
    unreadable          the engine saw the field but could not read its value (a smudged
                        total, an AnalyzeExpense value or a model answer that does not parse)
    low-confidence      found, but below its threshold
    amounts-disagree    net + tax differs from total by more than 0.01, or no tax was read
                        and net and total differ
    due-before-invoice  the due date is earlier than the invoice date
    table-sum           a table's column does not add up to its field (`table_checks.py`);
    table-balance       opening plus a table's column is not closing; every reason about
                        an advisory table is advisory: shown, routing nowhere
    ocr-repair          an identifier read by OCR needed a letter put back to a digit
    unread-tax-line     the page prints a tax line with a rate and an amount, and no tax
                        amount was read (the engine's findings, `rules_engine/crosscheck.py`)
    unread-due-date     a line asks to pay by a date that is not the invoice date, and no
                        due date was read (the engine's findings, `rules_engine/crosscheck.py`)
    ocr-currency-sign   every amount of a scanned page starts with one 4 or 8: a currency
                        sign OCR read as a digit (the engine's findings)
    order-mismatch      the purchase order the invoice cites, finalized earlier, names another
                        supplier, currency or total (`docflow/extract/checks/orders.py`)
    engine-failed       the engine gave no answer at all (added by the extract step)
    profile-disagrees   the layout's learned profile and the rules read different values
                        (added by docflow.suppliers.layout_read)
    profile-missing     a trusted layout field that every confirmed document printed, not
                        found on this one (added by docflow.suppliers.layout_read)
    registry-failed     the supplier registry could not be read (added by the extract step)
    einvoice-rule       an e-invoice's data fails its XSD or a fatal EN 16931 rule, or its
                        rules could not run (docflow/einvoice/fields.py, with `rule`)
    page-mismatch       a hybrid's printed page and its XML disagree (docflow/einvoice/agree.py,
                        with `xml`, `page` and `pageBox`)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import Decimal, InvalidOperation

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.extract.checks.spec import FieldRules, TypeFields
from docflow.extract.checks.table_checks import advisory_marked, table_checks

TOLERANCE = Decimal("0.01")


def _reason(field: str, code: str, message: str) -> Check:
    return Check(code, message, field)


def _amount(fields: Mapping[str, FieldValue], name: str) -> Decimal | None:
    try:
        return Decimal(str(fields[name]["value"])) if name in fields else None
    except (InvalidOperation, KeyError, TypeError):
        return None


def check_fields(
    fields: Mapping[str, FieldValue],
    spec: TypeFields,
    rules: FieldRules,
    unreadable: Collection[str] = (),
    repaired: Mapping[str, str] | None = None,
    fitted: Mapping[str, float] | None = None,
) -> list[Check]:
    """The reasons to send these fields to a person; `fitted` are the engine's calibrated
    per-field thresholds (the rules file's own thresholds win over them)."""
    reasons: list[Check] = []
    for name, was in sorted((repaired or {}).items()):
        if name in fields:
            value = fields[name].get("value")
            message = f"{name} read as {was!r}, taken as {value!r}"
            reasons.append(_reason(name, "ocr-repair", message))
    for name in spec.names:
        if name in fields:
            continue
        if name in unreadable:
            reasons.append(_reason(name, "unreadable", f"{name} is there but could not be read"))
        elif name in spec.required:
            reasons.append(_reason(name, "missing", f"{name} was not found"))
    for name in spec.names:
        if name in fields:
            confidence = float(fields[name].get("confidence", 0.0))
            threshold = rules.threshold(name, fitted)
            if confidence < threshold:
                reasons.append(
                    _reason(
                        name,
                        "low-confidence",
                        f"{name} read with confidence {confidence:.2f} (below {threshold:.2f})",
                    )
                )
    net, tax, total = (_amount(fields, n) for n in ("net_amount", "tax_amount", "total_amount"))
    if (
        net is not None
        and tax is not None
        and total is not None
        and (abs(net + tax - total) > TOLERANCE)
    ):
        reasons.append(
            _reason(
                "total_amount",
                "amounts-disagree",
                f"net {net} + tax {tax} = {net + tax}, but the total reads {total}",
            )
        )
    if (
        net is not None
        and total is not None
        and tax is None
        and "tax_amount" in spec.names
        and abs(total - net) > TOLERANCE
    ):
        # The page prints a net and a total that differ, and no tax was read: something
        # between them (a tax line OCR garbled, `[VA € 2.972,28`) went unread.
        reasons.append(
            _reason(
                "tax_amount",
                "amounts-disagree",
                f"no tax read, but net {net} and total {total} differ by {total - net}",
            )
        )
    issued = fields.get("invoice_date", {}).get("value")
    due = fields.get("due_date", {}).get("value")
    if issued and due and str(due) < str(issued):  # ISO dates compare as strings
        reasons.append(
            _reason(
                "due_date", "due-before-invoice", f"due {due} is before the invoice date {issued}"
            )
        )
    reasons += table_checks(fields, spec)
    return advisory_marked(reasons, spec)
