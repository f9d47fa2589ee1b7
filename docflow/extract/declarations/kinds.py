"""The kinds a declared field may have, and each kind's normal form (what engines answer and
`final.json` carries)."""

from __future__ import annotations

TEXT, ID, DATE, AMOUNT, CURRENCY = "text", "id", "date", "amount", "currency"
NUMBER, PERCENT, ENUM, CHECKBOX = "number", "percent", "enum", "checkbox"
PARTY, ADDRESS, TABLE = "party", "address", "table"

SCALAR_KINDS = (TEXT, ID, DATE, AMOUNT, CURRENCY, NUMBER, PERCENT, ENUM, CHECKBOX, PARTY, ADDRESS)
KINDS = (*SCALAR_KINDS, TABLE)

# Each kind's normal form, as engines must answer it and `final.json` carries it; an enum's
# value is also one of its declared values.
VALUE_PATTERNS: dict[str, str] = {
    ID: r"^\S(.{0,62}\S)?$",
    TEXT: r"^\S(.{0,198}\S)?$",
    PARTY: r"^\S(.{0,198}\S)?$",
    ADDRESS: r"^\S(.{0,398}\S)?$",
    DATE: r"^\d{4}-\d{2}-\d{2}$",
    CURRENCY: r"^[A-Z]{3}$",
    AMOUNT: r"^-?\d{1,12}\.\d{2}$",
    NUMBER: r"^-?\d{1,12}(\.\d{1,6})?$",
    PERCENT: r"^-?\d{1,3}(\.\d{1,4})?$",
    ENUM: r"^\S(.{0,62}\S)?$",
    CHECKBOX: r"^(true|false)$",
}
