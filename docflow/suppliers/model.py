"""The supplier record: one validating parse, one `to_item`, used by the CLI, the import, the
extract hook and the learn step alike.

A supplier's profile is what reviewers confirmed about its invoices, per field:

    {"label": text printed before the value, "region": [x0, y0, x1, y1] (page-relative),
     "page": n, "shape": a regular expression of the value (`E\\d{13}`) or the field's kind,
     "confirmed": how many approved reviews taught it, "misses": times it read a value a
     reviewer then corrected, "suspended": true after two misses, until a person confirms
     the field again}

or `{"absent": true, ...}` for a field an approved review left empty: this supplier's
documents do not print it, and a later reading of one disagrees with a person.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from docflow.names import describe, format_chars
from docflow.suppliers.ids import KINDS, is_valid, normalize
from docflow.suppliers.shapes import Profile, SupplierJson

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


class SupplierError(ValueError):
    """A supplier record that cannot be stored; `field` names what is wrong."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


# A cell a spreadsheet runs as a formula when it opens an export (`=HYPERLINK(...)`).
FORMULA_START = ("=", "+", "-", "@")


def unsafe_text(value: str) -> str:
    """Why `value` may not be a supplier's name or alias ("" when it may): a formula to a
    spreadsheet, or a character that renders as nothing (`docflow.names.format_chars`: a
    zero-width space, a bidirectional override that shows the name otherwise than it is, a
    soft hyphen), with which a name reads as another's while it is not."""
    if value.startswith(FORMULA_START):
        return f"{value[:40]!r} starts with {value[0]!r} (a spreadsheet would run it as a formula)"
    hidden = format_chars(value)
    if hidden:
        return f"{value[:40]!r} holds the invisible character {describe(hidden[0])}"
    return ""


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64] or "supplier"


@dataclass(frozen=True)
class Supplier:
    supplier_id: str
    name: str
    aliases: tuple[str, ...] = ()
    # kind -> compact values (`{"vat": ("DE136695976",), "iban": ("DE89...",)}`), all checked.
    ids: dict[str, tuple[str, ...]] = field(default_factory=dict)
    currency: str = ""
    profile: Profile = field(default_factory=Profile)
    profile_version: int = 0

    @property
    def keys(self) -> list[str]:
        """Every `kind:value` this supplier claims (one claim item each in the table)."""
        return [f"{kind}:{value}" for kind in KINDS for value in self.ids.get(kind, ())]

    @classmethod
    def parse(cls, raw: Mapping[str, Any], stored: bool = False) -> Supplier:
        """From a dict of the `to_json` shape (ids as lists); raises SupplierError. `stored`:
        a record read back from the registry, whose names were checked when it was written:
        a name a later rule refuses (`unsafe_text`) must not make the registry unreadable."""
        name = str(raw.get("name") or "").strip()
        if not name or len(name) > 200:
            raise SupplierError("name", "is required (at most 200 characters)")
        supplier_id = str(raw.get("supplierId") or slug(name))
        if not _ID.match(supplier_id):
            raise SupplierError("supplierId", "lower-case letters, digits and dashes, 1..64")
        currency = str(raw.get("currency") or "").strip().upper()
        if currency and not _CURRENCY.match(currency):
            raise SupplierError("currency", f"{currency!r} is not a three-letter ISO code")
        ids: dict[str, tuple[str, ...]] = {}
        for kind, values in (raw.get("ids") or {}).items():
            if kind not in KINDS:
                raise SupplierError(kind, f"unknown id kind (one of {', '.join(KINDS)})")
            compact = tuple(dict.fromkeys(normalize(kind, str(v)) for v in values if str(v)))
            for value in compact:
                if not is_valid(kind, value):
                    raise SupplierError(kind, f"{value!r} fails its check")
            if compact:
                ids[kind] = compact
        aliases = tuple(a.strip() for a in raw.get("aliases") or () if str(a).strip())
        for label, text in [("name", name), *(("aliases", a) for a in aliases)]:
            if not stored and (why := unsafe_text(text)):
                raise SupplierError(label, why)
        return cls(
            supplier_id,
            name,
            aliases,
            ids,
            currency,
            cast("Profile", dict(raw.get("profile") or {})),
            int(raw.get("profileVersion") or 0),
        )

    def to_json(self) -> SupplierJson:
        return {
            "supplierId": self.supplier_id,
            "name": self.name,
            "aliases": list(self.aliases),
            "ids": {k: list(v) for k, v in self.ids.items()},
            "currency": self.currency or None,
            "profile": self.profile,
            "profileVersion": self.profile_version,
        }
