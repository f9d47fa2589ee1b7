"""Line items on the real set: the `lines` table the extract step read, scored against the
rows written by hand in each truth file's `"tables": {"lines": [...]}` (see the set's README).

How rows are compared. A read row is exact when it equals a truth row of the same document on
every column the truth row has (a column the invoice does not print is absent from the truth
row, and a cell the reader gave for it is not scored): `description` after collapsing runs of
white space (a description wrapped over two printed lines is one space), the numeric columns
by value (`3` equals `3.00`). Rows are matched by value, not by position: each read row, in
the order read, takes the first truth row it equals that no earlier read row took, so a
truth row counts once however often it is read, and a row read out of order still counts.

    documents            documents whose truth has at least one line
    without_lines        documents whose truth says they print no line table (`"lines": []`)
    read                 documents with lines in truth whose table was read (one row or more)
    rows, rows_read      rows in truth (on the documents with lines), rows read on them
    rows_exact           read rows equal to a truth row (each truth row matched at most once)
    rows_exact_rate      rows_exact / rows
    documents_exact      documents whose every truth row was read exactly and nothing else
    silent_wrong_rows    rows read that match no truth row, on documents no person checks the
                         fields of (no `fields`, `triage` or `audit` stage: as `silent_wrong`
                         in scoring.py), in a table the record does not mark `unverified`
                         (its sum checked), counting documents whose truth prints no lines
    unverified_wrong_rows  the same rows in tables the record marks `unverified`: finalized
                         with no person, but said to be unchecked
    sum_checked          documents read whose read amounts add up to the read `net_amount`
                         (within 0.01): the check the declaration makes, as it would pass
    sum_checked_exact    of those, documents whose rows were also exact
    truth_adds_up        documents whose printed line amounts add up to the printed net
                         (the truth's `linesAddUp`): the ceiling for `sum_checked`
    by_mode {text_layer, scanned: {documents, rows, rows_read, rows_exact}}
    by_issuer {issuer: {documents, rows, rows_read, rows_exact}}   which layouts carry the
                         figure (the reader has no fitted parameters, so a leave-one-issuer-
                         out figure would equal this one; its labels are read from this set's
                         headers, though, so the figure is in-sample)

With no row read anywhere (no `lines` field, or an engine that does not read tables), the
section is `{"read": 0, "documents": n, "rows": n}`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from _extraction.scoring import REVIEWS

TABLE = "lines"
NUMERIC = frozenset({"quantity", "unit_price", "amount"})
TOLERANCE = Decimal("0.01")

Row = dict[str, str]


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except (InvalidOperation, TypeError, ValueError):
        return None


def same_cell(column: str, got: str | None, truth: str, numeric: Collection[str] = NUMERIC) -> bool:
    if got is None:
        return False
    if column in numeric:
        a, b = _number(got), _number(truth)
        return a is not None and a == b
    return " ".join(str(got).split()) == " ".join(truth.split())


def same_row(got: Row, truth: Row, numeric: Collection[str] = NUMERIC) -> bool:
    """Equal on every column the truth row has (columns it lacks are not scored)."""
    return all(same_cell(c, got.get(c), v, numeric) for c, v in truth.items())


def match_rows(read: Sequence[Row], truth: Sequence[Row]) -> list[int | None]:
    """For each read row, the index of the truth row it was matched to, or None."""
    taken: set[int] = set()
    out: list[int | None] = []
    for row in read:
        hit = next((i for i, t in enumerate(truth) if i not in taken and same_row(row, t)), None)
        if hit is not None:
            taken.add(hit)
        out.append(hit)
    return out


def read_rows(result: dict[str, Any], table: str = TABLE) -> list[Row]:
    """The rows the extract step read: whole (`tableRows`, from the step's full answer in S3)
    where the bench kept them, else the checkpoint's (whose cells may be masked)."""
    kept = (result.get("tableRows") or {}).get(table)
    if kept is None:
        kept = (result.get("fields", {}).get(table) or {}).get("rows")
    return [dict(r) for r in kept or () if isinstance(r, dict)]


def sum_checks(rows: Sequence[Row], net: str | None, column: str = "amount") -> bool:
    """The read rows' `column` adds up to the read net amount, within a cent."""
    amounts = [_number(r[column]) for r in rows if column in r]
    total, target = sum((a for a in amounts if a is not None), Decimal(0)), _number(net or "")
    return (
        bool(amounts)
        and None not in amounts
        and target is not None
        and (abs(total - target) <= TOLERANCE)
    )


def judge_lines(doc: Any, result: dict[str, Any]) -> dict[str, Any] | None:
    """One document's lines verdict, or None when its truth has no `lines` table."""
    truth = (getattr(doc, "tables", None) or {}).get(TABLE)
    if truth is None:
        return None
    rows = read_rows(result)
    matched = match_rows(rows, truth)
    exact = sum(m is not None for m in matched)
    reviewed = any(s.get("name") in REVIEWS for s in result.get("stages", ()))
    net = (result.get("fields", {}).get("net_amount") or {}).get("value")
    checked = sum_checks(rows, net)
    unverified = bool((result.get("fields", {}).get(TABLE) or {}).get("unverified"))
    return {
        "rows": len(truth),
        "rows_read": len(rows),
        "rows_exact": exact,
        "exact": exact == len(truth) == len(rows),
        "silent_wrong": 0 if reviewed or unverified else len(rows) - exact,
        "unverified_wrong": len(rows) - exact if unverified and not reviewed else 0,
        "sum_checked": checked,
        "adds_up": bool(getattr(doc, "lines_add_up", False)),
    }


def section(docs: Sequence[Any], results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The real set's `lines` figures (module docstring)."""
    pairs = [(d, judge_lines(d, r)) for d, r in zip(docs, results, strict=True)]
    judged = [(d, v) for d, v in pairs if v is not None]
    lined = [(d, v) for d, v in judged if v["rows"]]
    rows = sum(v["rows"] for _, v in lined)
    if not any(v["rows_read"] for _, v in judged):
        return {"read": 0, "documents": len(lined), "rows": rows}
    read = [v for _, v in lined if v["rows_read"]]
    exact = sum(v["rows_exact"] for _, v in lined)
    return {
        "documents": len(lined),
        "without_lines": len(judged) - len(lined),
        "read": len(read),
        "rows": rows,
        "rows_read": sum(v["rows_read"] for _, v in lined),
        "rows_exact": exact,
        "rows_exact_rate": round(exact / rows, 4) if rows else None,
        "documents_exact": sum(v["exact"] for _, v in lined),
        "silent_wrong_rows": sum(v["silent_wrong"] for _, v in judged),
        "unverified_wrong_rows": sum(v["unverified_wrong"] for _, v in judged),
        "sum_checked": sum(v["sum_checked"] for v in read),
        "sum_checked_exact": sum(v["sum_checked"] and v["exact"] for v in read),
        "truth_adds_up": sum(v["adds_up"] for _, v in lined),
        "match": "by value, each truth row once, order ignored",
        "by_mode": _grouped(lined, lambda d: "scanned" if d.scanned else "text_layer"),
        "by_issuer": _grouped(lined, lambda d: str(getattr(d, "issuer", "") or d.ident)),
    }


def _grouped(
    lined: Iterable[tuple[Any, dict[str, Any]]], key: Callable[[Any], str]
) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(
        lambda: {"documents": 0, "rows": 0, "rows_read": 0, "rows_exact": 0}
    )
    for doc, v in lined:
        entry = out[key(doc)]
        entry["documents"] += 1
        for count in ("rows", "rows_read", "rows_exact"):
            entry[count] += v[count]
    return dict(sorted(out.items()))


def misses(docs: Sequence[Any], results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each truth row not read exactly and each read row matching none (for `--verbose`)."""
    out: list[dict[str, Any]] = []
    for doc, result in zip(docs, results, strict=True):
        truth = (getattr(doc, "tables", None) or {}).get(TABLE)
        if truth is None:
            continue
        rows = read_rows(result)
        matched = match_rows(rows, truth)
        hit = {m for m in matched if m is not None}
        out += [{"doc": doc.ident, "missed": t} for i, t in enumerate(truth) if i not in hit]
        extra = [r for r, m in zip(rows, matched, strict=True) if m is None]
        out += [{"doc": doc.ident, "extra": r} for r in extra]
    return out
