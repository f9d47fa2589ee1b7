"""A review page's Approve / Reject POST: what it says, read once into a typed form, and every
check of it against its link, in one place (the desk's).

The callback API's form handler (`docflow.review.web.forms`) parses the body into a
`DecisionForm` and hands it to the desk, which checks it here (`checked_decision`: the reject
reason, the triage type, the split, the corrected fields). A form that does not pass raises a
`FieldProblem` naming the field it concerns, so the page comes back with the message beside
that field and nothing is decided; a form that passes becomes the `Decision`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from docflow.extract.checks.corrections import Correction, validate_corrections
from docflow.extract.declarations.model import TypeDecl
from docflow.extract.declarations.values import MAX_ROWS
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.refusals import (
    OTHER_NEEDS_COMMENT,
    ReviewRefused,
    other_without_comment,
    reasons_for,
)
from docflow.review.link_view import LinkView
from docflow.review.stage.decision import Decision
from docflow.review.stage.masking import masked_value
from docflow.review.stage.split import parts_from_starts, split_problem
from docflow.review.stage.triage import UNCLASSIFIABLE, choices_of, type_problem
from docflow.rules.detectors import find_all
from docflow.suppliers.shown import supplier_offer

MAX_FIELDS = 5_100  # a split page's checkboxes (up to the pages a packet may have) and a few
APPROVE, REJECT = "approve", "reject"
# A table editor's cell: `table.<field>.<row>.<column>`, or its row's "Remove" tick.
_CELL = re.compile(r"table\.([a-z][a-z0-9_]{0,47})\.(\d{1,4})\.([a-z][a-z0-9_]{0,47})")


@dataclass(frozen=True)
class TypedRow:
    """One row of a table editor as the reviewer sent it: its number on the page (0-based),
    its cells as typed (stripped; "" for an empty input) and whether "Remove" was ticked."""

    index: int
    cells: dict[str, str]
    remove: bool = False


@dataclass(frozen=True)
class DecisionForm:
    decision: str = ""  # "approve" or "reject"; anything else decides nothing
    reason: str = ""  # a rejection's reason (`access.refusals.reasons_for` the link)
    comment: str = ""
    doc_type: str = ""  # a triage page's pick, or `unclassifiable` ("none of these")
    fields: dict[str, str] = field(default_factory=dict)  # `field.<name>` inputs, stripped
    # Each table editor's rows (`table.<field>.<row>.<column>` inputs), in row order.
    tables: dict[str, tuple[TypedRow, ...]] = field(default_factory=dict)
    add_supplier: bool = False  # "add this supplier", with an approval only
    starts: tuple[str, ...] = ()  # a split page's ticked "a new document starts here" pages

    @property
    def approved(self) -> bool:
        return self.decision == APPROVE

    @classmethod
    def parse(cls, body: str) -> DecisionForm:
        """The form from a urlencoded body; the body's own size limit bounds the fields."""
        form = parse_qs(body, max_num_fields=MAX_FIELDS)

        def one(name: str) -> str:
            return (form.get(name) or [""])[0]

        decision = one("decision")
        # The last of a name's values: a checkbox follows the hidden input that says "unticked".
        return cls(
            decision=decision,
            reason=one("reason"),
            comment=one("comment"),
            doc_type=one("docType"),
            fields={k[6:]: _one_line(v[-1]) for k, v in form.items() if k.startswith("field.")},
            tables=_tables(form),
            add_supplier=decision == APPROVE and one("addSupplier") == "yes",
            starts=tuple(form.get("start") or ()),
        )


def _one_line(typed: str) -> str:
    """A value as one line: an address typed on several lines in its text area keeps them as
    ", " (a field's normal form holds no line break)."""
    return ", ".join(line.strip() for line in typed.splitlines() if line.strip())


def _tables(form: Mapping[str, list[str]]) -> dict[str, tuple[TypedRow, ...]]:
    """The table editors' inputs, row by row: `remove` is the row's tick, anything else a
    column (the declaration says which columns there are)."""
    cells: dict[str, dict[int, dict[str, str]]] = {}
    for key, values in form.items():
        match = _CELL.fullmatch(key)
        if match:
            name, row, column = match.group(1), int(match.group(2)), match.group(3)
            cells.setdefault(name, {}).setdefault(row, {})[column] = values[-1].strip()
    return {
        name: tuple(
            TypedRow(i, {c: v for c, v in row.items() if c != "remove"}, "remove" in row)
            for i, row in sorted(rows.items())
        )
        for name, rows in cells.items()
    }


BAD_FIELDS = "Correct the values marked below"


class FieldProblem(ReviewRefused):
    """A form that is not complete yet (400): `field` is the input the message belongs beside
    ("reason", "docType", "start", "fields"); `errors` a message per corrected field; `starts`
    the split page's ticks worth keeping. The desk sets `view` (the link as it checked it), so
    the page comes back without checking the link a second time."""

    def __init__(
        self,
        code: str,
        message: str,
        field_name: str,
        errors: Mapping[str, str] | None = None,
        starts: tuple[int, ...] = (),
    ) -> None:
        super().__init__(400, code, message)
        self.field = field_name
        self.errors = dict(errors or {})
        self.starts = starts
        self.view: LinkView | None = None


def checked_decision(
    form: DecisionForm,
    link: LinkRecord,
    reviewer: str,
    review_on: tuple[str, ...],
    decl: TypeDecl | None = None,
) -> Decision:
    """The decision the form makes on this link, or the problem that keeps it from deciding.
    `review_on`: the detectors that route to review (a correction may not hold what they find);
    `decl`: the fields the document's type declares (each correction is checked by its kind)."""
    if form.decision not in (APPROVE, REJECT):
        raise ReviewRefused(400, "no-decision", "choose Approve or Reject")
    comment = form.comment.strip()
    if not form.approved:
        if form.reason not in reasons_for(link):
            raise FieldProblem("no-reason", "Choose why you reject the document", "reason")
        if other_without_comment(form.reason, form.comment):
            raise FieldProblem("no-comment", OTHER_NEEDS_COMMENT, "reason")
        return Decision.made(False, reviewer, comment, form.reason)
    summary = link.summary
    split = link.shown.split
    if split:
        parts = _split_parts(form.starts, int(split["pages"]))
        return Decision.made(True, reviewer, comment, parts=parts)
    choices = choices_of(summary)
    if choices:  # triage: the type is a required choice; "none of these" archives it
        problem = type_problem(form.doc_type, choices)
        if problem:
            raise FieldProblem("bad-doc-type", problem, "docType")
        if form.doc_type == UNCLASSIFIABLE:
            return Decision.made(False, reviewer, comment, UNCLASSIFIABLE)
        return Decision.made(True, reviewer, comment, doc_type=form.doc_type)
    if form.add_supplier and not supplier_offer(link.shown.summary):
        raise ReviewRefused(400, "no-supplier-offer", "this document offers no supplier to add")
    corrections = _corrections(summary, form, review_on, decl)
    return Decision.made(
        True, reviewer, comment, corrections=corrections, add_supplier=form.add_supplier
    )


def _split_parts(raw: tuple[str, ...], pages: int) -> list[list[int]]:
    """A split page's ticks as parts: every page of the packet in exactly one document."""
    starts = sorted({int(v) for v in raw if v.isdigit() and len(v) < 7})
    problem = ""
    if len(starts) < len(raw) or any(not 1 <= s <= pages for s in starts):
        problem = f"Tick pages of this packet only (1 to {pages})"
    parts = parts_from_starts(starts, pages)
    problem = problem or split_problem(parts, pages)
    if problem:
        kept = tuple(s for s in starts if 1 <= s <= pages)
        raise FieldProblem("bad-split", problem, "start", starts=kept)
    return parts


def _corrections(
    summary: Mapping[str, Any],
    form: DecisionForm,
    review_on: tuple[str, ...],
    decl: TypeDecl | None,
) -> dict[str, Correction]:
    """The corrected values, validated by their declared kinds. A value sent back as the page
    showed it (masked, when a detector found something in it) is no correction; nor is a
    table sent back with the rows it had."""
    fields = summary.get("fields") or {}
    shown = {k: masked_value(str((fields.get(k) or {}).get("value") or "")) for k in fields}
    # A field's new text, or a table's rows.
    submitted: dict[str, str | list[dict[str, str]]] = {
        k: v for k, v in form.fields.items() if v and v != shown.get(k)
    }
    bad: dict[str, str] = {}
    for name, typed in form.tables.items():
        rows = table_rows(typed)
        if rows is None:
            bad[name] = f"at most {MAX_ROWS} rows"
        elif [r for r in rows if r] != ((fields.get(name) or {}).get("rows") or []):
            submitted[name] = rows
    if not submitted and not bad:
        return {}
    corrections, errors = validate_corrections(fields, submitted, decl)
    errors |= bad
    # As typed, each table row where the page numbers it (blank and removed rows in place).
    errors |= detected_in(submitted, review_on)
    if errors:  # a bad value decides nothing; each message sits by its field
        raise FieldProblem("bad-fields", BAD_FIELDS, "fields", errors=errors)
    return corrections


def table_rows(typed: Sequence[TypedRow]) -> list[dict[str, str]] | None:
    """A table editor's rows as a correction: removed and blank rows left empty in place, so
    a message's "row 3" is the row the page numbers 3 (`normalize_rows` drops empty rows);
    None past the rows a table may have."""
    if not typed:
        return []
    last = max(r.index for r in typed)
    if last >= MAX_ROWS + 3:
        return None
    rows: list[dict[str, str]] = [{} for _ in range(last + 1)]
    for row in typed:
        if not row.remove:
            rows[row.index] = {c: v for c, v in row.cells.items() if v}
    while rows and not rows[-1]:
        rows.pop()
    return rows


def detected_in(
    corrections: Mapping[str, Correction], review_on: tuple[str, ...]
) -> dict[str, str]:
    """A correction holding a number the detectors route to review (a card, an SSN) is refused
    by its field, a table's by its cell (`row 3, item: ...`): the decision would carry it whole
    into the run's history and the record. Each cell is read alone: cells joined into a line
    would join a card to the amount beside it into a run that is no card, and make a card of
    two cells that are none. An IBAN may be a field's value (a payee's), so it is not refused
    here."""
    detectors = tuple(d for d in review_on if d != "iban")
    found = {name: _detected(value, detectors) for name, value in corrections.items()}
    return {name: said for name, said in found.items() if said}


def _detected(value: Correction, detectors: tuple[str, ...]) -> str:
    """Why a correction is refused ("" if it is not): its value's or its first cell's finding."""
    cells = (
        [("", value)]
        if isinstance(value, str)
        else [
            (f"row {i}, {column}: ", cell)
            for i, row in enumerate(value, 1)
            for column, cell in row.items()
        ]
    )
    for where, text in cells:
        found = find_all(text, detectors) if detectors else []
        if found:
            return f"{where}this holds a {found[0].detector.replace('_', ' ')}: no field keeps one"
    return ""
