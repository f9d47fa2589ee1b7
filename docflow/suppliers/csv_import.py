"""`docflow suppliers import FILE.csv`: every row checked before anything is written.

Columns (a header row; only `name` is required, the others may be absent or empty):

    id        the supplier id (default: the name in lower case, dashes for the rest)
    name      the registry's name for it, which a checked-id match puts in `vendor_name`
    aliases   other names it prints, separated by `;`
    vat, siret, siren, kvk, cnpj, cuit, gstin, abn, ein, iban
              its ids (`;` between several), each checked as `docflow.suppliers.ids` says
    currency  its default currency (ISO 4217), used when an invoice names none

A row that is malformed (no name, an id that fails its check, an unknown column, a bad
currency), two rows claiming one id, or an id a supplier already in the registry holds:
the import stops with an error naming the row, and nothing of the file is written.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from docflow.suppliers.ids import KINDS
from docflow.suppliers.model import Supplier, SupplierError
from docflow.suppliers.store import SupplierStore

COLUMNS = ("id", "name", "aliases", *KINDS, "currency")


class SupplierImportError(ValueError):
    """What is wrong with the file, naming the row (1 = the header)."""

    def __init__(self, row: int, message: str) -> None:
        super().__init__(f"row {row}: {message}")
        self.row = row


def _split(cell: str | None) -> list[str]:
    return [p.strip() for p in (cell or "").split(";") if p.strip()]


def parse_csv(text: str) -> list[Supplier]:
    """Every row as a Supplier, or SupplierImportError for the first row that is not one."""
    reader = csv.DictReader(io.StringIO(text))
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


def import_suppliers(store: SupplierStore, text: str) -> list[Supplier]:
    """Check every row and every claim against the registry, then write them all."""
    suppliers = parse_csv(text)
    rows = {s.supplier_id: n for n, s in enumerate(suppliers, start=2)}
    conflicts = store.conflicts(suppliers)
    if conflicts:
        first = conflicts[0]
        raise SupplierImportError(rows[first.claimant], str(first))
    for supplier in suppliers:
        store.put(supplier)
    return suppliers


__all__: Sequence[str] = ("COLUMNS", "SupplierImportError", "import_suppliers", "parse_csv")
