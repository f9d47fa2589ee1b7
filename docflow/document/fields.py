"""One key field and one check on the fields, as the run carries them.

Both are written as the JSON that checkpoints, the read model, review links and final.json have
always held (`to_json`), and read back from any of them (`from_json`), so a summary stored in a
link record by an older release still reads. A key this code does not name is kept as it came
(`more`), in its place at the end, so nothing written by another release is lost on the way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, TypedDict, cast

from docflow.document.shown import FieldValue

Row = Mapping[str, str]
Box = tuple[float, float, float, float]


class _Absent:
    """A key the JSON did not have, apart from one it had as null (`"box": null` is written by
    an engine that read no box; a corrected field without one writes no key)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Final = _Absent()

# The keys a field's JSON has, in the order it has always written them.
_FIELD_KEYS = (
    "value",
    "confidence",
    "page",
    "box",
    "derived",
    "rows",
    "source",
    "printed",
    "unverified",
    "masked",
    "original",
    "correctedBy",
    "correctedAt",
)


@dataclass(frozen=True)
class Field:
    """A field's value (a table's: how many rows, `rows` holding them), how sure, where it was
    read (page, box: four page-relative numbers), where it came from (`source`: registry,
    profile, ...), and what a reviewer changed (`original`, `corrected_by`, `corrected_at`)."""

    value: Any  # a string as read; what an engine or a reviewer gave, never reinterpreted
    confidence: float = 0.0
    page: int = 0
    box: list[float] | _Absent | None = ABSENT
    derived: bool = False  # computed from other fields, not printed
    rows: tuple[Row, ...] | None = None
    source: str = ""  # "registry", "profile", ... ("" : the engine's own reading)
    printed: str | _Absent | None = ABSENT  # what the page said where the registry's name shows
    unverified: bool = False  # an advisory table whose checks did not all pass
    masked: str = ""  # the detector whose match the value held, masked to its last four
    original: Any = ABSENT  # what was read before a correction (a table: its rows)
    corrected_by: str | None = None  # None: never corrected
    corrected_at: str | None = None
    more: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def is_table(self) -> bool:
        return self.rows is not None

    @property
    def corrected(self) -> bool:
        return self.corrected_by is not None

    @property
    def text(self) -> str:
        """The value as text, "" for none."""
        return "" if self.value in (None, "") else str(self.value).strip()

    def with_confidence(self, confidence: float) -> Field:
        return replace(self, confidence=confidence)

    def to_json(self) -> FieldValue:
        out: FieldValue = {
            "value": self.value,
            "confidence": self.confidence,
            "page": self.page,
        }
        if not isinstance(self.box, _Absent):
            out["box"] = None if self.box is None else list(self.box)
        if self.derived:
            out["derived"] = True
        if self.rows is not None:
            out["rows"] = [dict(row) for row in self.rows]
        if self.source:
            out["source"] = self.source
        if not isinstance(self.printed, _Absent):
            out["printed"] = self.printed
        if self.unverified:
            out["unverified"] = True
        if self.masked:
            out["masked"] = self.masked
        if not isinstance(self.original, _Absent):
            out["original"] = self.original
        if self.corrected_by is not None:
            out["correctedBy"] = self.corrected_by
        if self.corrected_at is not None:
            out["correctedAt"] = self.corrected_at
        # Keys of another release's (`more`) come back last, as they came.
        return cast("FieldValue", {**out, **self.more})

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Field:
        rows = raw.get("rows")
        box = raw.get("box", ABSENT)
        return cls(
            value=raw.get("value"),
            confidence=raw.get("confidence", 0.0),
            page=raw.get("page", 0),
            box=list(box) if isinstance(box, list | tuple) else box,
            derived=bool(raw.get("derived", False)),
            rows=tuple(dict(r) for r in rows) if isinstance(rows, list | tuple) else None,
            source=str(raw.get("source") or ""),
            printed=raw.get("printed", ABSENT),
            unverified=bool(raw.get("unverified", False)),
            masked=str(raw.get("masked") or ""),
            original=raw.get("original", ABSENT),
            corrected_by=raw.get("correctedBy"),
            corrected_at=raw.get("correctedAt"),
            more={k: v for k, v in raw.items() if k not in _FIELD_KEYS},
        )


def fields_from_json(raw: Mapping[str, Any] | None) -> dict[str, Field]:
    return {str(name): Field.from_json(f) for name, f in (raw or {}).items()}


def fields_json(fields: Mapping[str, Field]) -> dict[str, FieldValue]:
    return {name: f.to_json() for name, f in fields.items()}


_CHECK_KEYS = ("field", "code", "rule", "severity", "message", "advisory")


class CheckJson(TypedDict, total=False):
    """A check as checkpoints, the read model and review links carry it (`Check.to_json`):
    its own keys, and those some checks add (a page-versus-data mismatch's `xml`, printed
    value under `page` and `pageBox`) in the order they were written."""

    field: str
    code: str
    rule: str
    severity: str
    xml: str
    pageBox: dict[str, object] | None
    message: str
    page: int | str  # the page it points to; a mismatch's: the value the page printed
    advisory: bool | str  # "true" in the extract step's full answer (fields.json), as written


@dataclass(frozen=True)
class Check:
    """A finding about the fields that a person should see: its `code` (`low-confidence`,
    `bank-details`, `einvoice-rule`, ...), the field it concerns (`*`: the document), what to
    tell the reviewer, the rule that raised it (an e-invoice's business rule id), its severity,
    the page it points to, and `advisory`: shown, never routing (an advisory table's)."""

    code: str
    message: str = ""
    field: str = "*"
    rule: str = ""
    severity: str = ""
    page: int | None = None
    advisory: bool = False
    # What some checks carry besides (a page-versus-data mismatch: its `xml`, the printed
    # value under `page`, and `pageBox`), in the order they were written.
    more: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def holds(self) -> bool:
        """Whether it routes the document to a person (an advisory one never does)."""
        return not self.advisory

    def as_advisory(self) -> Check:
        return replace(self, advisory=True)

    def to_json(self) -> CheckJson:
        out: dict[str, Any] = {"field": self.field, "code": self.code}
        if self.rule:
            out["rule"] = self.rule
        if self.severity:
            out["severity"] = self.severity
        out.update(self.more)
        out["message"] = self.message
        if self.page is not None:
            out["page"] = self.page
        if self.advisory:
            out["advisory"] = True
        return cast("CheckJson", out)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Check:
        page = raw.get("page")
        numbered = isinstance(page, int) and not isinstance(page, bool)
        # `"advisory": "true"` is how the table checks once wrote it.
        advisory = raw.get("advisory") in (True, "true")
        return cls(
            code=str(raw.get("code") or ""),
            message=str(raw.get("message") or ""),
            field=str(raw.get("field") or "*"),
            rule=str(raw.get("rule") or ""),
            severity=str(raw.get("severity") or ""),
            page=page if numbered else None,
            advisory=advisory,
            more={
                k: v
                for k, v in raw.items()
                if k not in _CHECK_KEYS and not (k == "page" and numbered)
            },
        )


def checks_from_json(raw: Any) -> tuple[Check, ...]:
    return tuple(Check.from_json(c) for c in raw or ())


def checks_json(checks: tuple[Check, ...] | list[Check]) -> list[CheckJson]:
    return [c.to_json() for c in checks]
