"""The field-extraction interface: what an engine gets, what it answers.

An engine reads a few pages of one document and answers, per declared field it found
(`declarations/model.py`), the value in its kind's normal form (`declarations/values.py`) or a
table's rows, a confidence 0..1, the page and (where the engine has one) the value's box
`[x0, y0, x1, y1]`, page-relative 0..1 from the page's top-left corner (the readers' unit;
`box: null` where the engine gives none, as `bedrock` does).
An engine never raises for a bad answer of its own service: an answer that does not parse is a
missing or low-confidence field, and the checks send the document to a person. Throttles and
outages do raise; the caller retries them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypedDict

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.extract.declarations.model import FieldDecl, TypeDecl
from docflow.readers.base import Word

# What an engine is asked for: a type's declaration, or (tests, tools) the names of fields the
# rules engine has built-in labels for.
Wanted = TypeDecl | Sequence[str]


def declared(wanted: Wanted) -> TypeDecl:
    """The declaration an engine reads by: given names, each with its built-in kind."""
    if isinstance(wanted, TypeDecl):
        return wanted
    return TypeDecl("*", tuple(FieldDecl(name, BUILTIN_KINDS[name]) for name in wanted))


@dataclass(frozen=True)
class PageInput:
    page: int  # 1-based
    text: str
    engine: str  # which reader produced the text: textlayer, tesseract, textract
    confidence: float  # the reader's mean word confidence, 0..100
    # Renders the page for engines that look at the image (AnalyzeExpense): PNG bytes.
    image: Callable[[], bytes] | None = None
    # The reader's words with their boxes; empty where the reader gave none (then the
    # rules engine lays the page out from its text).
    words: Sequence[Word] = ()
    # What OCR read in the page's pictures (readers/pictures), and the boxes of pictures at
    # a payment line it read nothing in: the bank-details check's, no field engine's.
    picture_words: Sequence[Word] = ()
    unread_pictures: Sequence[tuple[float, float, float, float]] = ()


# What a value's confidence was computed from (`rules_engine.calibration` reads it), in the
# step's full answer only. Functional syntax: `from` is a keyword.
Evidence = TypedDict(
    "Evidence",
    {
        "source": str,  # label, weak-label, declared-label, pattern, table-header, derived, ...
        "position": float,  # where the value sat from its label
        "label": float,  # how well the label read
        "form": float,  # how well the value fit its kind's form (0: a doubt)
        "ocr": float,  # the OCR factor its confidence carries
        "repaired": bool,  # OCR letters put back to digits
        "scanned": bool,
        "score": float,  # the engine's own confidence, before the calibration
        "reconciled": bool,  # net + tax = total held
        "parts": int,
        "agree": int,  # how many readings gave the value
        "rivals": bool,  # another reading as sure gave another value
        "values": int,
        "amounts": int,
        "tax_rate": str,  # match | mismatch: the printed rate times the net against the tax
        "sign_digit": str,  # the digit a currency sign was read as, taken off
        "point_of_sale": bool,
        "from": str,  # a derived value: what it was computed from
        "rows": int,  # a table's: its rows, the rows dropped, its cells, the valid ones,
        "dropped": int,  # its pages, and the rows past the most kept
        "cells": int,
        "valid": int,
        "pages": list[int],
        "truncated": int,
    },
    total=False,
)


class FieldDetail(FieldValue, total=False):
    """A field as the step's full answer (`fields.json`) has it: the checkpoint's, with the
    text it was read from and its evidence."""

    raw: str
    evidence: Evidence


@dataclass(frozen=True)
class FoundField:
    value: str
    confidence: float
    page: int
    box: list[float] | None = None  # [x0, y0, x1, y1], page-relative, top-left origin
    raw: str = ""  # the text the value was read from, for the S3 record only
    # What the confidence was computed from (`docflow.extract.rules_engine.calibration`): small
    # named signals, open to more (a supplier registry's or a learned profile's match). S3 only.
    evidence: Evidence = field(default_factory=Evidence)
    # Not printed: computed from other fields (a net amount as total minus tax).
    derived: bool = False
    # A table field's rows, each `{column: value}` in its columns' normal forms (`value` then
    # says how many: "3 rows"); None for any other field.
    rows: tuple[dict[str, str], ...] | None = None

    def summary(self) -> FieldValue:
        """What checkpoints and the read model carry: the value, its confidence and where it
        was read (page and box, four numbers); never the raw text."""
        out: FieldValue = {
            "value": self.value,
            "confidence": round(self.confidence, 3),
            "page": self.page,
            "box": [round(v, 4) for v in self.box] if self.box else None,
        }
        if self.derived:
            out["derived"] = True
        if self.rows is not None:
            out["rows"] = [dict(row) for row in self.rows]
        return out

    def detail(self) -> FieldDetail:
        out: FieldDetail = {**self.summary()}
        if self.raw:
            out["raw"] = self.raw[:200]
        if self.evidence:
            out["evidence"] = self.evidence.copy()
        return out


@dataclass
class Extraction:
    engine: str
    fields: dict[str, FoundField] = field(default_factory=dict)
    # Problems with the engine's answer that did not fail the document (dropped fields).
    rejected: list[dict[str, str]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)  # model tokens, for cost
    language: str | None = None
    # Fields whose value needed an OCR repair (`INV-O005` -> `INV-0005`): name -> as read.
    repairs: dict[str, str] = field(default_factory=dict)
    # Checks the engine's own cross-checks raised (codes as `checks/field_checks.py` lists
    # them): a tax line it could not read, amounts whose currency sign OCR read as a digit.
    findings: list[Check] = field(default_factory=list)
    # Per-field thresholds that belong to this engine's calibrated confidences; the rules
    # file's own `[fields.thresholds]` still win.
    thresholds: dict[str, float] = field(default_factory=dict)


class FieldEngine(Protocol):
    name: str

    def extract(self, pages: Sequence[PageInput], wanted: Wanted) -> Extraction:
        """Find the wanted fields (a type's declaration, or built-in field names) in these
        pages."""
        ...
