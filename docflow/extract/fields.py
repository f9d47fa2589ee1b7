"""The canonical fields: their names, kinds and normal forms, and the JSON schema engines answer.

Every engine, the checks, the reviewers' corrections and the finalized record speak these names
and forms, so a value compares equal whichever engine found it:

    invoice_number, po_number   identifiers, as printed (trimmed)
    vendor_name                 text, as printed (trimmed)
    invoice_date, due_date      ISO 8601 dates, YYYY-MM-DD
    currency                    ISO 4217 code, upper case
    net_amount, tax_amount,
    total_amount                decimal strings with two places, "1234.50"
"""

from __future__ import annotations

from typing import Any

ID, TEXT, DATE, CURRENCY, AMOUNT = "id", "text", "date", "currency", "amount"

FIELD_KINDS: dict[str, str] = {
    "invoice_number": ID,
    "po_number": ID,
    "invoice_date": DATE,
    "due_date": DATE,
    "vendor_name": TEXT,
    "currency": CURRENCY,
    "net_amount": AMOUNT,
    "tax_amount": AMOUNT,
    "total_amount": AMOUNT,
}

# What each field's normal form looks like; engines' answers are held to it.
VALUE_PATTERNS: dict[str, str] = {
    ID: r"^\S(.{0,62}\S)?$",
    TEXT: r"^\S(.{0,198}\S)?$",
    DATE: r"^\d{4}-\d{2}-\d{2}$",
    CURRENCY: r"^[A-Z]{3}$",
    AMOUNT: r"^-?\d{1,12}\.\d{2}$",
}

DESCRIPTIONS: dict[str, str] = {
    "invoice_number": "The invoice's own number, as printed.",
    "po_number": "The purchase order number, as printed.",
    "invoice_date": "Date the invoice (or order) was issued, YYYY-MM-DD.",
    "due_date": "Date payment is due, YYYY-MM-DD.",
    "vendor_name": "Name of the company that issued the document.",
    "currency": "ISO 4217 code of the amounts, e.g. EUR.",
    "net_amount": "Amount before tax, two decimal places with a dot, e.g. 1234.50.",
    "tax_amount": "Tax amount, two decimal places with a dot.",
    "total_amount": "Total to pay including tax, two decimal places with a dot.",
}


def field_schema(names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The JSON schema a model's answer must match: one object per field the document type has.

    Each field is `{value, page, confidence}`; a field the model cannot find is left out.
    """
    properties = {
        name: {
            "type": "object",
            "description": DESCRIPTIONS[name],
            "properties": {
                "value": {"type": "string", "pattern": VALUE_PATTERNS[FIELD_KINDS[name]]},
                "page": {"type": "integer", "minimum": 1},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "required": ["value", "page", "confidence"],
            "additionalProperties": False,
        }
        for name in names
    }
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
