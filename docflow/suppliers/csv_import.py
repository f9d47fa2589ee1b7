"""`docflow suppliers import FILE.csv`: every row checked before anything is written.

Columns (a header row; only `name` is required, the others may be absent or empty):

    id        the supplier id (default: the name in lower case, dashes for the rest)
    name      the registry's name for it, which a checked-id match puts in `vendor_name`
    aliases   other names it prints, separated by `;`
    vat, siret, siren, kvk, cnpj, cuit, gstin, abn, ein, iban
              its ids (`;` between several), each checked as `docflow.suppliers.ids` says
    currency  its default currency (ISO 4217), used when an invoice names none

The file is what a spreadsheet saves: `,` or `;` between cells (whichever the header line
holds more of; a `;` file quotes a cell of several values), UTF-8 with or without a BOM, or
Windows-1252 (detected by charset-normalizer: what Excel writes in Western Europe).

A row that is malformed (no name, an id that fails its check, an unknown column, a bad
currency, a name or alias that starts with `= + - @` or holds a bidirectional control
character), two rows claiming one id, or an id a supplier already in the registry holds:
the import stops with an error naming the row, and nothing of the file is written. A row
whose id is registered already is written only with `replace` (and says what changes);
without it the import writes nothing and names those rows (`SuppliersExist`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docflow.suppliers import history
from docflow.suppliers.ids import KINDS, masked_iban
from docflow.suppliers.model import Supplier, SupplierError
from docflow.suppliers.store import SupplierStore

COLUMNS = ("id", "name", "aliases", *KINDS, "currency")


class SupplierImportError(ValueError):
    """What is wrong with the file, naming the row (1 = the header)."""

    def __init__(self, row: int, message: str, path: Path | None = None) -> None:
        super().__init__(f"{path}: {message}" if path else f"row {row}: {message}")
        self.row: int | None = row or None


class SuppliersExist(ValueError):
    """Rows whose supplier id is registered already, and what importing them would change."""

    def __init__(self, changed: list[Changed]) -> None:
        rows = ", ".join(f"row {c.row} ({c.supplier_id})" for c in changed)
        super().__init__(f"registered already: {rows}; --replace writes them")
        self.changed = changed
        self.row = changed[0].row


@dataclass(frozen=True)
class Changed:
    """A row of a supplier registered already: what writing it changes (empty: nothing)."""

    row: int
    supplier_id: str
    changes: list[str]

    def to_json(self) -> dict[str, object]:
        return {"row": self.row, "supplierId": self.supplier_id, "changes": self.changes}


@dataclass(frozen=True)
class Imported:
    suppliers: list[Supplier]
    replaced: list[Changed]


def read_text(path: Path) -> str:
    """The file's text; SupplierImportError (row 0, naming the file) for a file that is not
    there, a folder, or bytes that are no text."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SupplierImportError(0, "no such file", path) from None
    except IsADirectoryError:
        raise SupplierImportError(0, "is a folder, not a CSV file", path) from None
    except OSError as exc:
        raise SupplierImportError(0, exc.strerror or str(exc), path) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data:
        raise SupplierImportError(0, "is not a text file", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    found = from_bytes(data)
    best = found.best()
    if best is None:
        raise SupplierImportError(0, "is not a text file", path)
    # A short Western file fits several single-byte code pages about as well (`Crème` is
    # `Crčme` in cp1250, which the detector may rank first); Excel writes cp1252.
    western = any("cp1252" in match.could_be_from_charset for match in found)
    encoding = "cp1252" if western else best.encoding
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return str(best)


def _delimiter(text: str) -> str:
    header = text.split("\n", 1)[0]
    return ";" if header.count(";") > header.count(",") else ","


def _split(cell: str | None) -> list[str]:
    return [p.strip() for p in (cell or "").split(";") if p.strip()]


def parse_csv(text: str) -> list[Supplier]:
    """Every row as a Supplier, or SupplierImportError for the first row that is not one."""
    reader = csv.DictReader(io.StringIO(text), delimiter=_delimiter(text))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if "name" not in header:
        raise SupplierImportError(1, "the header must name a `name` column")
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise SupplierImportError(1, f"unknown column(s) {unknown}; known: {', '.join(COLUMNS)}")
    reader.fieldnames = header
    suppliers: list[Supplier] = []
    seen: dict[str, int] = {}
    for row_number, row in enumerate(reader, start=2):
        if None in row:  # more cells than the header has columns
            raise SupplierImportError(
                row_number, f"{len(header) + len(row[None])} cells, header has {len(header)}"
            )
        try:
            supplier = Supplier.parse(
                {
                    "supplierId": (row.get("id") or "").strip() or None,
                    "name": row.get("name") or "",
                    "aliases": _split(row.get("aliases")),
                    "ids": {k: _split(row.get(k)) for k in KINDS if row.get(k)},
                    "currency": row.get("currency") or "",
                }
            )
        except SupplierError as exc:
            raise SupplierImportError(row_number, str(exc)) from exc
        for key in [f"supplier:{supplier.supplier_id}", *supplier.keys]:
            if key in seen:
                raise SupplierImportError(row_number, f"{key} is claimed by row {seen[key]} too")
            seen[key] = row_number
        suppliers.append(supplier)
    return suppliers


def changes(old: Supplier, new: Supplier) -> list[str]:
    """What writing `new` over `old` changes, one line per attribute (IBANs masked)."""

    def ids(s: Supplier) -> set[str]:
        return {
            f"{k}:{masked_iban(v) if k == 'iban' else v}" for k, vs in s.ids.items() for v in vs
        }

    out = [
        f"{label}: {a!r} -> {b!r}"
        for label, a, b in (
            ("name", old.name, new.name),
            ("aliases", list(old.aliases), list(new.aliases)),
            ("currency", old.currency, new.currency),
        )
        if a != b
    ]
    out += [f"id added {k}" for k in sorted(ids(new) - ids(old))]
    out += [f"id removed {k}" for k in sorted(ids(old) - ids(new))]
    return out


def import_suppliers(
    store: SupplierStore, text: str, by: str = "", replace: bool = False
) -> Imported:
    """Check every row and every claim against the registry, then write them all, each with
    its history entry. Rows registered already need `replace` (SuppliersExist otherwise)."""
    suppliers = parse_csv(text)
    rows = {s.supplier_id: n for n, s in enumerate(suppliers, start=2)}
    conflicts = store.conflicts(suppliers)
    if conflicts:
        first = conflicts[0]
        raise SupplierImportError(rows[first.claimant], str(first))
    olds = {s.supplier_id: store.get(s.supplier_id) for s in suppliers}
    existing = [
        Changed(rows[s.supplier_id], s.supplier_id, changes(old, s))
        for s in suppliers
        if (old := olds[s.supplier_id]) is not None
    ]
    if existing and not replace:
        raise SuppliersExist(existing)
    changed = {c.supplier_id: c for c in existing}
    for supplier in suppliers:
        was = changed.get(supplier.supplier_id)
        what = history.REPLACED if was else history.IMPORTED
        detail = "; ".join(was.changes) or "no change" if was else supplier.name
        store.put(supplier, history.entry(supplier.supplier_id, what, by, f"CSV: {detail}"))
    return Imported(suppliers, existing)


__all__: Sequence[str] = (
    "COLUMNS",
    "SupplierImportError",
    "SuppliersExist",
    "import_suppliers",
    "parse_csv",
    "read_text",
)
