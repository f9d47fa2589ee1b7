"""A table's rows as an engine answered them, held to the declaration's columns row by row.

`values.normalize_rows` refuses a whole table at its first bad cell: right for a reviewer's
correction (the page shows the message), wrong for an engine's answer, where one misread cell
should cost one row, not the table. Here a row whose cell does not normalize is dropped and
named, and the rest are kept; the checks then catch what the dropped row leaves out (a
table-sum that no longer adds up, a row count a person can see).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docflow.extract.declarations.model import Column
from docflow.extract.declarations.values import MAX_ROWS, normalize_rows


def kept_rows(columns: Sequence[Column], rows: Any) -> tuple[list[dict[str, str]], list[str]]:
    """(the rows that normalize, a message per dropped row: `row 2, amount: enter an
    amount`)."""
    if not isinstance(rows, list):
        return [], ["rows: a list of rows"]
    dropped: list[str] = []
    if len(rows) > MAX_ROWS:
        dropped.append(f"rows past {MAX_ROWS} dropped ({len(rows)} answered)")
        rows = rows[:MAX_ROWS]
    kept: list[dict[str, str]] = []
    for number, row in enumerate(rows, 1):
        out, error = normalize_rows(columns, [row])
        if error is not None:
            # normalize_rows numbers the one row it was given "row 1".
            dropped.append(f"row {number}{error.removeprefix('row 1')}")
        elif out:
            kept.extend(out)
    return kept, dropped
