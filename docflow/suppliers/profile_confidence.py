"""How sure a layout profile's read is: from the field's own graded record and what checked
the value, calibrated on reads whose truth is known, never from the labelled-reading table.

A profile read is not a label the rules engine found: it is a prediction the layout's own
record grades (docflow.suppliers.trust). Its confidence is the share of right reads among
reads like it in the shipped table (`profile_calibration.json`, fitted offline by
`bench/extraction.py --only variants --fit-profile` on the reads of the variants' warm replay,
and naming that set): the posterior mean of a Beta(1, 1) prior and the cell's counts, so a
cell seen 40 times right of 40 says 0.98, one seen 3 of 3 says 0.8, and one never seen 0.5.

A read's cell (`cell_keys`, most specific first):

    kind | mode | hits | agree     kind: id, date, amount, party; mode: text, scan (OCR
                                    confidence of its words at least LOW_OCR), scan-low;
                                    hits: the field's graded hits (0, 1, 2+); agree: the
                                    rules engine read the same value, alone: it did not
    kind | mode | hits
    kind | mode

The most specific cell with at least MIN_CELL reads answers; a repaired read (OCR letters put
back to digits) answers only from its own cell (`... | repaired`), never from unrepaired
reads', so a repair the table never saw right sends the value to a person. A repaired amount is
the exception: it is given only where, with it, net + tax = total, and a read that check holds
answers, when no repaired cell has its reads, from the amounts' own cells. A value that fails
a check (net + tax = total, a due date before the invoice date, a total lines do not add up
to) goes to a person whatever its confidence: the checks run after the profile
(`docflow.extract.checks`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import NotRequired, TypedDict

from docflow.extract.declarations.kinds import AMOUNT
from docflow.extract.declarations.labels import READ_AS
from docflow.suppliers.profile import PARTY, Located
from docflow.suppliers.shapes import ProfileEntry
from docflow.suppliers.trust import hits

TABLE = Path(__file__).with_name("profile_calibration.json")
MIN_CELL = 10
LOW_OCR = 0.8
UNSEEN = 0.5


def mode_of(found: Located, page_factor: float) -> str:
    """text, scan or scan-low: how the value's words were read."""
    if found.ocr is None and page_factor >= 1.0:
        return "text"
    ocr = page_factor if found.ocr is None else found.ocr
    return "scan" if ocr >= LOW_OCR else "scan-low"


def hits_bucket(entry: ProfileEntry) -> str:
    n = hits(entry)
    return "2+" if n >= 2 else str(n)


def kind_of(name: str) -> str:
    return PARTY if name == "vendor_name" else str(READ_AS.get(name, "id"))


def cell_keys(
    name: str, found: Located, entry: ProfileEntry, agreed: bool, page_factor: float
) -> list[str]:
    """The read's cells, most specific first (the module's docstring)."""
    base = f"{kind_of(name)}|{mode_of(found, page_factor)}"
    full = f"{base}|{hits_bucket(entry)}|{'agree' if agreed else 'alone'}"
    plain = [full, f"{base}|{hits_bucket(entry)}", base]
    if found.repaired and kind_of(name) == AMOUNT:
        # A repaired amount is given only where, with it, net + tax = total (layout_read):
        # the check vouches for the repair, so it answers as the reads the check held do.
        return [f"{full}|repaired", f"{base}|repaired", *plain]
    if found.repaired:
        return [f"{full}|repaired", f"{base}|repaired"]
    return plain


class ProfileTable(TypedDict):
    """`profile_calibration.json`: per cell, the reads that were right and all of them (what
    it was fitted on and how are the bench's notes, read by no code)."""

    cells: dict[str, list[int]]
    fitted_on: NotRequired[object]
    method: NotRequired[str]
    min_cell: NotRequired[int]


@lru_cache(maxsize=4)
def load_table(path: str = str(TABLE)) -> ProfileTable:
    """The shipped table; an empty one (every read unseen: 0.5) when there is none."""
    try:
        table: ProfileTable = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"cells": {}}
    return table


def from_counts(right: int, total: int) -> float:
    """The posterior mean under a Beta(1, 1) prior."""
    return (right + 1) / (total + 2)


def probability(keys: list[str], table: ProfileTable) -> float:
    cells: Mapping[str, list[int]] = table.get("cells") or {}
    for key in keys:
        right, total = cells.get(key, (0, 0))
        if total >= MIN_CELL:
            return round(from_counts(int(right), int(total)), 4)
    return UNSEEN


def confidence(
    name: str,
    found: Located,
    entry: ProfileEntry,
    agreed: bool,
    page_factor: float,
    table: ProfileTable | None = None,
) -> float:
    """The read's calibrated confidence (the module's docstring)."""
    keys = cell_keys(name, found, entry, agreed, page_factor)
    return probability(keys, load_table() if table is None else table)
