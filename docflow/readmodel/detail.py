"""What of a report does not fit the read model's item, and how a reader gets it back.

A report's payload is kept twice: whole in its history row, and merged into the document's
state, which the dashboard's lists read whole. DynamoDB holds an item up to 400 KB; the
recorder keeps each report's payload under INLINE_BYTES, so a state (a handful of reports
merged) stays a few tens of KB whatever the document holds. A payload over it (an invoice's
200 line rows, an e-invoice's forty broken rules, a reviewer's corrected table) is stored whole
in S3 (`storage.report_detail_key`) and the items keep a compact form of what was moved, the
largest attributes first until the rest fits:

    fields, corrections  every field as read, but a table's rows give way to `rowCount` and
                         `sums` (each column whose cells are all plain numbers, added up at
                         their own precision); a corrected table's rows read likewise
    a list               its first KEEP entries
    an object            its lists cut to KEEP entries, its long texts cut
    a text               its first TEXT_CHARS characters

and `detail`: {attribute: {"key": the S3 key, "count": how many entries the whole had}}. What
the lifecycle and the indexes read (KEPT) is never moved. A reader that wants the whole
document (`ReadModel.show`, the recorder's `finalized` event) calls `restore`, which puts each
moved attribute back from its key. The state merges `detail` per attribute, as it merges the
attributes: a later report that carries an attribute whole drops the earlier key for it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypedDict, TypeVar, cast

from docflow.readmodel.items import Moved, Payload
from docflow.storage import REPORT_DETAIL_KEY

# What one report's payload keeps in an item; the rest goes to S3.
INLINE_BYTES = 8 * 1024
# What a report may carry at all: under Lambda's 6 MB synchronous Invoke request, which is how
# reports reach the recorder. A run's summary passes through checkpoints of at most 256 KB a
# step first, so a report of any document is far under it.
WIRE_BYTES = 4 * 1024 * 1024
KEEP = 3
TEXT_CHARS = 200
DETAIL = "detail"
# Never moved: the lifecycle, the sparse indexes and the lists' columns read these, and each
# is small by construction (ids, names, a stage's reviewers).
KEPT = frozenset(
    {
        "bucket",
        "key",
        "etag",
        "functionVersion",
        "pages",
        "bytes",
        "batches",
        "docType",
        "confidence",
        "lowConfidence",
        "stageIndex",
        "stageName",
        "reviewers",
        "reviewLinks",
        "reviewDeadline",
        "decision",
        "reviewer",
        "decidedAt",
        "reason",
        "resultKey",
        "archiveKey",
        "parts",
        "partsFailed",
        "parentId",
        "parentRunId",
        "parentPages",
        "parentKey",
        DETAIL,
    }
)
_FIELD_MAPS = ("fields", "corrections")  # {name: field}, a table's rows under "rows"
_PLAIN_NUMBER = re.compile(r"^-?\d+(?:\.(\d+))?$")


@dataclass(frozen=True)
class Fitted:
    """A payload as the items keep it, and the whole payload when anything was moved."""

    payload: Payload
    whole: Payload | None = None
    key: str | None = None


def size(value: Any) -> int:
    """The bytes a value takes as the recorder measures it (JSON, non-ASCII escaped: never
    less than what DynamoDB stores)."""
    return len(json.dumps(value))


def digest(run_id: str, event_id: str, payload: Mapping[str, Any]) -> str:
    """What names a report's whole payload in S3: its run, its position and its content."""
    body = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{run_id}\x1f{event_id}\x1f{body}".encode()).hexdigest()[:16]


def fit(payload: Payload, key: str) -> Fitted:
    """The payload under INLINE_BYTES: unchanged when it fits, else its largest attributes
    compacted (then, if need be, left out) with `detail` naming `key` for each."""
    if size(payload) <= INLINE_BYTES:
        return Fitted(payload.copy())
    whole: Mapping[str, object] = payload  # read by the names the loop picks
    inline = dict(whole)
    moved: dict[str, Moved] = dict(payload.get("detail") or {})
    movable = sorted((n for n in whole if n not in KEPT), key=lambda n: (-size(whole[n]), n))
    # First each attribute compacted; then, if need be, left out, a field map last (its scalar
    # values are what the lists, the dashboard and an invoice's purchase-order match read).
    last = sorted(movable, key=lambda n: n in _FIELD_MAPS)
    for shrink, names in ((compact, movable), (None, last)):
        for name in names:
            if size(inline) <= INLINE_BYTES:
                break
            if shrink is None:
                inline.pop(name, None)
            else:
                inline[name] = shrink(name, whole[name])
            moved[name] = Moved(key=key, count=count(whole[name]))
            inline[DETAIL] = moved
    # Compacted, each attribute keeps its kind (a list, a map, a text), not every entry's
    # shape: a reader that needs the entries restores them (`restore`).
    return Fitted(cast("Payload", inline), payload.copy(), key)


def count(value: Any) -> int:
    return len(value) if isinstance(value, (list, dict, str)) else 1


def compact(name: str, value: Any) -> Any:
    """What an item keeps of a moved attribute: counts, sums and the first entries."""
    if name in _FIELD_MAPS and isinstance(value, dict):
        return {k: compact_field(v) for k, v in value.items()}
    if isinstance(value, list):
        return value[:KEEP]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return _cut(value)


def _cut(value: Any) -> Any:
    if isinstance(value, list):
        return value[:KEEP]
    if isinstance(value, str) and len(value) > TEXT_CHARS:
        return value[:TEXT_CHARS] + "\u2026"
    return value


def compact_field(value: Any) -> Any:
    """A table field without its rows: how many, and what its number columns add up to."""
    if not isinstance(value, dict):
        return value
    out = {k: v for k, v in value.items() if k not in ("rows", "original")}
    rows, original = value.get("rows"), value.get("original")
    if isinstance(rows, list):
        out["rowCount"] = len(rows)
        if sums := column_sums(rows):
            out["sums"] = sums
    if isinstance(original, list):
        out["originalRowCount"] = len(original)
    elif "original" in value:
        out["original"] = _cut(original)
    if isinstance(out.get("value"), str):
        out["value"] = _cut(out["value"])
    return out


def column_sums(rows: list[Any]) -> dict[str, str]:
    """Each column whose every filled cell is a plain number (the normal form of an amount, a
    number or a percent), added up and written at the cells' own precision: quantities `48`,
    amounts `1234.50`. A column with any other cell (a date, a text) has no sum."""
    cells: dict[str, list[str]] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        for column, cell in row.items():
            if cell not in (None, ""):
                cells.setdefault(str(column), []).append(str(cell))
    sums: dict[str, str] = {}
    for column, values in cells.items():
        matched = [_PLAIN_NUMBER.match(v) for v in values]
        if not all(matched):
            continue
        places = max(len(m.group(1) or "") for m in matched if m)
        total = sum((Decimal(v) for v in values), Decimal(0))
        sums[column] = f"{total:.{places}f}"
    return sums


def merged(
    earlier: Mapping[str, Moved] | None, payload: Mapping[str, Any], state: Mapping[str, Any]
) -> dict[str, Moved]:
    """The state's `detail` after a report's payload was merged into it: an attribute the
    payload carried whole drops the earlier key; one it moved takes the payload's; one the
    state no longer holds (a decided stage's reviewers) is gone."""
    moved = {k: v for k, v in (earlier or {}).items() if k not in payload and k in state}
    moved.update(payload.get(DETAIL) or {})
    return moved


Loader = Callable[[str], Mapping[str, Any] | None]


class _Detailed(TypedDict, total=False):
    detail: dict[str, Moved]


# What `restore` puts attributes back into: a state, or a history row's payload.
StoredT = TypeVar("StoredT", bound=_Detailed)


def restore(item: StoredT, load: Loader) -> StoredT:
    """The item with each moved attribute put back whole from its key (`load`: the stored
    whole payload, or None when it is gone: the compact form and its `detail` entry stay)."""
    detailed: _Detailed = item
    moved = detailed.get("detail") or {}
    if not moved:
        return copy.copy(item)
    out = {k: v for k, v in item.items() if k != DETAIL}
    left: dict[str, Moved] = {}
    wholes: dict[str, Mapping[str, Any] | None] = {}
    for name, where in moved.items():
        key = where["key"]
        if key not in wholes:
            wholes[key] = load(key)
        whole = wholes[key]
        if whole is not None and name in whole:
            out[name] = whole[name]
        else:
            left[name] = where
    if left:
        out[DETAIL] = left
    # The same attributes, each moved one whole again.
    return cast("StoredT", out)


def check_detail(value: Any, document_id: str) -> str | None:
    """What is wrong with a payload's `detail`, or None: each entry names a report detail
    key of this document (so no report can point a reader at another object)."""
    if not isinstance(value, dict):
        return "must be an object"
    for name, where in value.items():
        if not isinstance(where, dict) or set(where) != {"key", "count"}:
            return f"{name}: must be {{key, count}}"
        matched = REPORT_DETAIL_KEY.match(str(where["key"]))
        if not matched or matched.group(1) != document_id:
            return f"{name}: key is not a report detail of this document"
        if isinstance(where["count"], bool) or not isinstance(where["count"], int):
            return f"{name}: count must be an integer"
    return None
