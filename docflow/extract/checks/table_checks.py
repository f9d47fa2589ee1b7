"""The checks a table field declares against its type's fields (`TableCheck`), and the mark on
every reason about an advisory table. Pure: fields in, reasons out.

    table-sum       the column's sum is not the field `equals` (within `tolerance`): an
                    invoice's line amounts that do not add up to its net amount
    table-balance   `opening` plus the column's sum is not `closing`: a statement's
                    transactions that do not take its opening balance to its closing one

A check whose table or field was not read is skipped: `missing` and `low-confidence` already
send those to a person. A table declared `advisory = true` (an invoice's line items, read
from layouts no one has seen) must not hold a document that was going straight through:
every reason about it is advisory (`Check.advisory`), and the caller keeps it off the route.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.extract.declarations.model import FieldDecl, TableCheck, TypeDecl

AMOUNT = "amount"


def table_checks(fields: Mapping[str, FieldValue], spec: TypeDecl) -> list[Check]:
    """The reasons the type's read tables disagree with its read fields."""
    reasons: list[Check] = []
    for table in spec.tables:
        rows = fields.get(table.name, {}).get("rows")
        if rows is None:
            continue
        for check in table.checks:
            reason = _check(table, check, rows, fields, spec)
            if reason is not None:
                reasons.append(reason)
    return reasons


def advisory_marked(reasons: Sequence[Check], spec: TypeDecl) -> list[Check]:
    """The reasons, those about an advisory table marked advisory."""
    advisory = {f.name for f in spec.tables if f.advisory}
    return [r.as_advisory() if r.field in advisory else r for r in reasons]


def _check(
    decl: FieldDecl,
    check: TableCheck,
    rows: Sequence[Mapping[str, Any]],
    fields: Mapping[str, FieldValue],
    spec: TypeDecl,
) -> Check | None:
    table = decl.name
    column = decl.column(check.column)
    # Each number as its kind writes it: an amount `1,180.00`, a quantity `48`.
    kinds = {name: getattr(spec.get(name), "kind", AMOUNT) for name in check.fields()}
    kinds[check.column] = column.kind if column else AMOUNT
    wanted = {name: _number(fields.get(name, {}).get("value")) for name in check.fields()}
    if any(value is None for value in wanted.values()):
        return None
    cells = (_number(row.get(check.column)) for row in rows)
    total = sum((n for n in cells if n is not None), Decimal(0))
    if check.equals is not None:
        printed = wanted[check.equals]
        assert printed is not None
        if abs(total - printed) <= check.tolerance:
            return None
        message = (
            f"{table}: {check.column} adds up to {_shown(total, kinds[check.column])} "
            f"but {check.equals} reads {_shown(printed, kinds[check.equals])}"
        )
        return Check("table-sum", message, table)
    assert check.opening is not None and check.closing is not None
    opening, closing = wanted[check.opening], wanted[check.closing]
    assert opening is not None and closing is not None
    if abs(opening + total - closing) <= check.tolerance:
        return None
    kind = kinds[check.closing]
    message = (
        f"{check.opening} {_shown(opening, kinds[check.opening])} plus {table}' "
        f"{check.column} {_shown(total, kinds[check.column])} is "
        f"{_shown(opening + total, kind)} but {check.closing} reads {_shown(closing, kind)}"
    )
    return Check("table-balance", message, table)


def _number(value: Any) -> Decimal | None:
    """A finite number, else None: `NaN` and `Infinity` read as decimals but no page prints
    them, and a NaN cannot even be compared with the tolerance."""
    try:
        number = Decimal(str(value)) if value is not None else None
    except InvalidOperation:
        return None
    return number if number is not None and number.is_finite() else None


def _shown(number: Decimal, kind: str = AMOUNT) -> str:
    """An amount with its cents and grouping (`1,180.00`); a number or percent plain, as
    its normal form writes it (`48`, `12.5`)."""
    if kind == AMOUNT:
        return f"{number:,.2f}"
    plain = format(number.normalize(), "f")
    return plain if "." not in plain else plain.rstrip("0").rstrip(".")


def unverified_tables(
    fields: Mapping[str, FieldValue], spec: TypeDecl, reasons: Sequence[Check]
) -> list[str]:
    """The advisory tables read whose checks did not all run and pass (a sum whose field was
    not read, a sum that does not add up, a low confidence). Nothing holds the document for
    them, so the record says it: their rows go out marked `"unverified": true`."""
    flagged = {r.field for r in reasons}
    out = []
    for table in spec.tables:
        if not table.advisory or fields.get(table.name, {}).get("rows") is None:
            continue
        ran = bool(table.checks) and all(
            _number(fields.get(name, {}).get("value")) is not None
            for check in table.checks
            for name in check.fields()
        )
        if not ran or table.name in flagged:
            out.append(table.name)
    return out
