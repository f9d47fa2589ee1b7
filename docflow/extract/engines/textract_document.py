"""The `textract` engine: Amazon Textract AnalyzeDocument on each rendered page, asked for the
type's declared fields by QUERIES and for its tables by TABLES.

Each scalar field is one query: its declaration's description (what a model is told it means)
or "What is the <name>?", the field's name as the alias. Textract takes at most 15 queries per
page in a synchronous call (30 only asynchronously), so more fields are asked in several calls
on the same page; a query's text is at most 200 characters of the ASCII the API's pattern
allows (botocore's service model: `QueryInput`). TABLES is asked once per page, only when the
type declares a table.

An answer is put in its kind's normal form (`values.normalize`), its confidence Textract's
/ 100 but never above 0.95 (Textract is sure of the words it read, not that they are the field
asked for); its box is the answer's geometry. A table is the first TABLE whose header row
names the declared columns (a header cell containing one of a column's labels, or its name,
case-insensitive); the rows under it, on this page and the next ones, are held to the
columns' kinds row by row (`answer_rows.py`). An answer that does not parse is dropped and
listed as rejected, never raised; throttles raise after the policy's retries, as the other
engines' do. Calls run under the OCR reader's cross-execution cap, as `textract-expense`'s.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from docflow import aws
from docflow.extract.base import Extraction, FoundField, PageInput, Wanted, declared
from docflow.extract.declarations.kinds import DATE
from docflow.extract.declarations.model import FieldDecl
from docflow.extract.declarations.parse import find_dates
from docflow.extract.declarations.values import normalize
from docflow.extract.engines.answer_rows import kept_rows
from docflow.extract.engines.textract_blocks import QueryAnswer, Table, query_answers, tables
from docflow.extract.rules_engine.evidence import date_order
from docflow.readers.throttling import ThrottlePolicy

if TYPE_CHECKING:
    from mypy_boto3_textract.literals import FeatureTypeType
    from mypy_boto3_textract.type_defs import (
        AnalyzeDocumentRequestTypeDef,
        AnalyzeDocumentResponseTypeDef,
        QueryTypeDef,
    )

MAX_QUERIES = 15  # per page, synchronous AnalyzeDocument (AWS's set quota)
MAX_QUERY_CHARS = 200  # QueryInput's length constraint
CAP = 0.95
UNSURE_DATE = 0.45  # a day/month order neither the date nor the currency decides
# QueryInput's pattern in botocore's service model: printable ASCII, no other characters.
_TYPOGRAPHIC = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-"})
_NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9\s!\"#$%'&()*+,\-./:;=?@\[\\\]^_`{|}~><]")


def query_text(spec: FieldDecl) -> str:
    """The question asked for a field: its description, else its name, as the API takes it."""
    question = spec.description or f"What is the {spec.name.replace('_', ' ')}?"
    # Accents come off (`é` -> `e`), typographic quotes and dashes become ASCII's, anything
    # else outside the pattern a space.
    decomposed = unicodedata.normalize("NFKD", question.translate(_TYPOGRAPHIC))
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    text = " ".join(_NOT_ALLOWED.sub(" ", folded).split())
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
    return text or f"What is the {spec.name.replace('_', ' ')}?"


def query_batches(fields: Sequence[FieldDecl]) -> list[list[QueryTypeDef]]:
    """The queries for these fields, at most `MAX_QUERIES` a call."""
    queries: list[QueryTypeDef] = [{"Text": query_text(f), "Alias": f.name} for f in fields]
    return [queries[i : i + MAX_QUERIES] for i in range(0, len(queries), MAX_QUERIES)]


class TextractDocumentEngine:
    name = "textract"
    wants_images = True  # AnalyzeDocument reads the page image, not our text

    def __init__(self, policy: ThrottlePolicy, semaphore: Any = None) -> None:
        self.policy, self.semaphore = policy, semaphore

    def _analyze(
        self, png: bytes, features: list[FeatureTypeType], queries: list[QueryTypeDef]
    ) -> AnalyzeDocumentResponseTypeDef:
        request: AnalyzeDocumentRequestTypeDef = {
            "Document": {"Bytes": png},
            "FeatureTypes": features,
        }
        if queries:
            request["QueriesConfig"] = {"Queries": queries}

        def call() -> AnalyzeDocumentResponseTypeDef:
            slot = self.semaphore.slot() if self.semaphore else nullcontext()
            with slot:
                return aws.client("textract").analyze_document(**request)

        return self.policy.call(call)

    def extract(self, pages: Sequence[PageInput], wanted: Wanted) -> Extraction:
        decl = declared(wanted)
        batches = query_batches([f for f in decl if not f.is_table])
        result = Extraction(engine=self.name)
        usage = {"analyzeDocumentPages": 0, "analyzeDocumentTablePages": 0}
        answers: list[tuple[int, QueryAnswer]] = []
        found_tables: list[tuple[int, Table]] = []
        for page in pages:
            if page.image is None:
                continue
            png = page.image()
            calls: list[tuple[list[FeatureTypeType], list[QueryTypeDef]]] = [
                (["QUERIES"], batch) for batch in batches
            ]
            if decl.tables:  # TABLES rides on the page's first call
                calls = calls or [([], [])]
                calls[0] = (["TABLES", *calls[0][0]], calls[0][1])
            for features, queries in calls:
                blocks = self._analyze(png, features, queries).get("Blocks") or []
                usage["analyzeDocumentPages"] += 1
                # A page asked TABLES beside QUERIES is billed as the combination.
                usage["analyzeDocumentTablePages"] += int(len(features) == 2)
                answers += [(page.page, a) for a in query_answers(blocks)]
                found_tables += [(page.page, t) for t in tables(blocks)]
        result.usage = usage
        order = date_order(None, _currency(answers))
        for spec in decl:
            if spec.is_table:
                table = _table(spec, found_tables, result)
                if table is not None:
                    result.fields[spec.name] = table
                continue
            best: FoundField | None = None
            for page_number, answer in answers:
                if answer.alias != spec.name:
                    continue
                found = _read(spec, answer, page_number, order)
                if isinstance(found, str):
                    result.rejected.append({"field": spec.name, "reason": found})
                elif best is None or found.confidence > best.confidence:
                    best = found
            if best is not None:
                result.fields[spec.name] = best
        return result


def _currency(answers: Sequence[tuple[int, QueryAnswer]]) -> str | None:
    """The currency query's answer, which decides which way a numeric date reads."""
    for _, answer in answers:
        if answer.alias == "currency":
            value, _error = normalize("currency", answer.text)
            if value:
                return value
    return None


def _read(spec: FieldDecl, answer: QueryAnswer, page: int, order: str | None) -> FoundField | str:
    text = answer.text.strip()
    confidence = min(CAP, max(0.0, answer.confidence / 100.0))
    value, error = normalize(spec.kind, text, spec.values, spec.pattern)
    if spec.kind == DATE and value is None:
        # `03/04/2026` is refused as ambiguous; the currency may decide it (as AnalyzeExpense's
        # dates are read), and an order nothing decided is sent to a person by its confidence.
        dates = find_dates(text, order)
        if len(dates) == 1:
            value, error = dates[0].iso, None
            if dates[0].ambiguous and not dates[0].resolved:
                confidence = min(confidence, UNSURE_DATE)
            if spec.pattern and not re.fullmatch(spec.pattern, value):
                value, error = None, f"does not match the declared pattern {spec.pattern}"
    if value is None:
        return f"value {text[:40]!r}: {error or 'empty'}"
    return FoundField(value, confidence, page, box=answer.box, raw=text)


def header_columns(spec: FieldDecl, header: Sequence[str]) -> dict[str, int] | None:
    """Column name -> index of the header cell that names it, or None when the header is not
    this table's (a required column, or fewer than two columns, unnamed)."""
    taken: dict[str, int] = {}
    cells = [h.casefold() for h in header]
    for column in spec.columns:
        labels = column.all_labels() or (column.name.replace("_", " "),)
        free = [i for i in range(len(cells)) if i not in taken.values()]
        # The column's first label wins over its later ones: `amount` before `price`.
        index = next((i for lbl in labels for i in free if lbl.casefold() in cells[i]), None)
        if index is not None:
            taken[column.name] = index
    if any(c.required and c.name not in taken for c in spec.columns):
        return None
    return taken if len(taken) >= min(2, len(spec.columns)) else None


def _table(
    spec: FieldDecl, found: Sequence[tuple[int, Table]], result: Extraction
) -> FoundField | None:
    """The declared table's rows from every TABLE whose header names its columns (a table
    continued on the next page repeats its header)."""
    rows: list[dict[str, str]] = []
    first: tuple[int, Table] | None = None
    scores: list[float] = []
    for page, table in found:
        grid = table.grid()
        at = header_columns(spec, grid[0]) if grid else None
        if at is None:
            continue
        first = first or (page, table)
        scores.append(table.confidence)
        for line in grid[1:]:
            if line == grid[0]:
                continue
            rows.append({name: line[i] for name, i in at.items() if line[i].strip()})
    if first is None:
        return None
    kept, dropped = kept_rows(spec.columns, [r for r in rows if r])
    result.rejected.extend({"field": spec.name, "reason": reason} for reason in dropped)
    if not kept:
        return None
    confidence = min(CAP, sum(scores) / len(scores) / 100.0)
    return FoundField(f"{len(kept)} rows", confidence, first[0], box=first[1].box, rows=tuple(kept))
