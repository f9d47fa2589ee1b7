"""Amazon Textract's AnalyzeDocument (QUERIES, TABLES) on loopback: the local twin of the
`textract` engine.

moto does not implement AnalyzeDocument's queries or tables. This extends the Textract emulator
(the same server as DetectDocumentText and AnalyzeExpense, with the same injected throttling and
in-flight measurement, so one `AWS_ENDPOINT_URL_TEXTRACT` serves the OCR reader and both
Textract engines). The page is read with tesseract; then

- QUERIES are answered by docflow's rules engine over tesseract's words, reading a declaration
  built from the queries (`declared.from_queries`: each alias a field, declared as the stack's
  rules file declares that name, with its labels; else a text field). The query's text is not
  understood: Textract reads the question, the emulator only the alias. An answer is the
  printed words under the value's box where they read as the same value (`1,100.00` for
  1100.00), else the value in its normal form;
- TABLES are found without any declaration, as the real service finds them: runs of lines
  whose cells fall into the same two or more column x-spans (`find_tables`), answered as TABLE
  and CELL blocks (RowIndex, ColumnIndex, CHILD ids of the WORD blocks), every grid position a
  CELL, an empty one with no words.

It emulates the API's shape and its request limits (at most 15 queries a call, query text of
1 to 200 characters of the allowed ASCII, QueriesConfig with QUERIES), not Textract's accuracy:
what it finds is what tesseract and the rules engine find.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from statistics import mean
from typing import TYPE_CHECKING, Any, TypedDict, cast

from docflow.extract.base import PageInput
from docflow.extract.declarations.values import normalize
from docflow.extract.rules_engine.layout import Cell, from_words
from docflow.local.emulators.declared import from_queries
from docflow.local.emulators.expense import ExpenseEmulator
from docflow.local.emulators.textract import Render, detect_document_text_answer
from docflow.readers.base import Word

if TYPE_CHECKING:
    from mypy_boto3_textract.literals import FeatureTypeType
    from mypy_boto3_textract.type_defs import (
        AdaptersConfigTypeDef,
        BlockTypeDef,
        DocumentMetadataTypeDef,
        GeometryTypeDef,
        HumanLoopConfigTypeDef,
        QueriesConfigTypeDef,
        QueryOutputTypeDef,
    )

TARGET = "Textract.AnalyzeDocument"
FEATURES = ("TABLES", "FORMS", "QUERIES", "SIGNATURES", "LAYOUT")
MAX_QUERIES = 15  # a synchronous call's limit
# QueryInput's pattern and length in botocore's service model.
_QUERY_TEXT = re.compile(r"[a-zA-Z0-9\s!\"#$%'&()*+,\-./:;=?@\[\\\]^_`{|}~><]{1,200}")
# Lines further apart than this many line heights end a table.
TABLE_GAP = 2.5


@dataclass
class FoundTable:
    """Lines of cells under the same column x-spans (the first line the header, as printed)."""

    spans: list[list[float]]  # [x0, x1] per column, left to right
    lines: list[dict[int, Cell]] = field(default_factory=list)  # column index -> cell


class AnalyzeAnswer(TypedDict):
    """AnalyzeDocument's answer as the emulator sends it (AWS's block type; botocore adds the
    ResponseMetadata, and no human loop is ever activated)."""

    DocumentMetadata: DocumentMetadataTypeDef
    Blocks: list[BlockTypeDef]
    AnalyzeDocumentModelVersion: str


class AnalyzeAsked(TypedDict, total=False):
    """An accepted AnalyzeDocumentRequest without its Document (the image): what the engine
    asked."""

    FeatureTypes: list[FeatureTypeType]
    HumanLoopConfig: HumanLoopConfigTypeDef
    QueriesConfig: QueriesConfigTypeDef
    AdaptersConfig: AdaptersConfigTypeDef


class AnalyzeDocumentEmulator(ExpenseEmulator):
    def __init__(self, port: int = 0, throttle_rate: float = 0.0, seed: int = 0) -> None:
        super().__init__(port=port, throttle_rate=throttle_rate, seed=seed)
        # AnalyzeDocument's accepted requests without the image: what the engine asked.
        self.requests: list[AnalyzeAsked] = []

    def operations(self) -> dict[str, Render]:
        return {**super().operations(), TARGET: self.analyze_answer}

    def for_request(self, target: str, render: Render, request: Mapping[str, Any]) -> Render | str:
        if target != TARGET:
            return super().for_request(target, render, request)
        problem = refusal(request)
        if problem:
            return problem
        with self._lock:
            asked = {k: v for k, v in request.items() if k != "Document"}
            self.requests.append(cast("AnalyzeAsked", asked))
        return partial(self.analyze_answer, request=request)

    def analyze_answer(
        self,
        text: str,
        ocr_confidence: float,
        words: Sequence[Word] = (),
        request: Mapping[str, Any] | None = None,
    ) -> AnalyzeAnswer:
        request = request or {}
        detected = detect_document_text_answer(text, ocr_confidence, words)
        blocks: list[BlockTypeDef] = list(detected["Blocks"])
        features = set(request.get("FeatureTypes") or ())
        if "QUERIES" in features:
            queries = (request.get("QueriesConfig") or {}).get("Queries") or []
            blocks += self._query_blocks(text, ocr_confidence, words, queries)
        if "TABLES" in features and words:
            ids = {id(w): f"word-{i}" for i, w in enumerate(words)}
            for n, table in enumerate(find_tables(words)):
                blocks += table_blocks(n, table, ids)
        return {
            "DocumentMetadata": detected["DocumentMetadata"],
            "Blocks": blocks,
            "AnalyzeDocumentModelVersion": "1.0",
        }

    def _query_blocks(
        self,
        text: str,
        ocr_confidence: float,
        words: Sequence[Word],
        queries: Sequence[Mapping[str, Any]],
    ) -> list[BlockTypeDef]:
        aliases = [str(q.get("Alias") or q["Text"]) for q in queries]
        decl = from_queries(aliases)
        page = PageInput(1, text, "tesseract", ocr_confidence, words=words)
        found = self._rules.extract([page], decl).fields
        blocks: list[BlockTypeDef] = []
        for n, (query, alias) in enumerate(zip(queries, aliases, strict=True)):
            asked = {k: query[k] for k in ("Text", "Alias", "Pages") if k in query}
            block: BlockTypeDef = {
                "BlockType": "QUERY",
                "Id": f"query-{n}",
                "Query": cast("QueryOutputTypeDef", asked),
            }
            blocks.append(block)
            hit = found.get(alias)
            spec = decl.get(alias)
            if hit is None or spec is None or hit.rows is not None:
                continue
            block["Relationships"] = [{"Type": "ANSWER", "Ids": [f"query-result-{n}"]}]
            printed = _printed(words, hit.box)
            same = printed and normalize(spec.kind, printed, spec.values)[0] == hit.value
            blocks.append(
                {
                    "BlockType": "QUERY_RESULT",
                    "Id": f"query-result-{n}",
                    "Text": printed if same else hit.value,
                    "Confidence": round(hit.confidence * 100, 2),
                    "Geometry": _geometry(hit.box or [0.1, 0.1, 0.3, 0.12]),
                    "Page": 1,
                }
            )
        return blocks


def refusal(request: Mapping[str, Any]) -> str | None:
    """Why AnalyzeDocument would refuse the request (InvalidParameterException), or None."""
    features = request.get("FeatureTypes")
    if not isinstance(features, list) or not features or set(features) - set(FEATURES):
        return f"FeatureTypes: one or more of {', '.join(FEATURES)}"
    config = request.get("QueriesConfig")
    if ("QUERIES" in features) != (config is not None):
        return "QueriesConfig goes with the QUERIES feature type, and only with it"
    if config is None:
        return None
    queries = config.get("Queries") if isinstance(config, Mapping) else None
    if not isinstance(queries, list) or not 1 <= len(queries) <= MAX_QUERIES:
        return f"QueriesConfig.Queries: 1 to {MAX_QUERIES} queries in a synchronous call"
    for query in queries:
        for key in ("Text", "Alias"):
            value = query.get(key) if isinstance(query, Mapping) else None
            if (key == "Text" or value is not None) and not (
                isinstance(value, str) and _QUERY_TEXT.fullmatch(value)
            ):
                return f"Query.{key}: 1 to 200 characters of the allowed ASCII"
    return None


def _printed(words: Sequence[Word], box: Sequence[float] | None) -> str:
    """The words inside a value's box, as printed."""
    if not box:
        return ""
    x0, y0, x1, y1 = box
    inside = [
        w
        for w in words
        if w.box[0] >= x0 - 1e-3
        and w.box[2] <= x1 + 1e-3
        and w.box[1] >= y0 - 1e-3
        and w.box[3] <= y1 + 1e-3
    ]
    return " ".join(w.text for w in sorted(inside, key=lambda w: w.box[0]))


def _geometry(box: Sequence[float]) -> GeometryTypeDef:
    x0, y0, x1, y1 = box
    return {"BoundingBox": {"Width": x1 - x0, "Height": y1 - y0, "Left": x0, "Top": y0}}


def _column(spans: Sequence[Sequence[float]], cell: Cell) -> int | None:
    """The column span the cell overlaps most, or None when it overlaps none."""
    best, best_overlap = None, 0.0
    for index, (x0, x1) in enumerate(spans):
        overlap = min(x1, cell.x1) - max(x0, cell.x0)
        if overlap > best_overlap:
            best, best_overlap = index, overlap
    return best


def _fits(table: FoundTable, line: Sequence[Cell]) -> dict[int, Cell] | None:
    """The line's cells by column when each falls into its own column of the table."""
    placed: dict[int, Cell] = {}
    for cell in line:
        index = _column(table.spans, cell)
        if index is None or index in placed:
            return None
        placed[index] = cell
    return placed if len(placed) >= 2 else None


def find_tables(words: Sequence[Word]) -> list[FoundTable]:
    """Runs of at least two lines (a header and a row) whose cells fall into the same two or
    more column x-spans, the first line setting the columns; a line that does not fit, or a
    blank band, ends the run. No declaration: it does not know what the columns mean."""
    page = from_words(1, words)
    found: list[FoundTable] = []
    current: FoundTable | None = None
    last_bottom = 0.0
    for line in page.lines:
        gap = bool(line) and line[0].y0 - last_bottom > page.line_height * TABLE_GAP
        placed = _fits(current, line) if current is not None and not gap else None
        if current is not None and placed is not None:
            current.lines.append(placed)
            for index, cell in placed.items():
                span = current.spans[index]
                span[0], span[1] = min(span[0], cell.x0), max(span[1], cell.x1)
        else:
            if current is not None and len(current.lines) >= 2:
                found.append(current)
            current = None
            if len(line) >= 2:
                spans = [[c.x0, c.x1] for c in line]
                current = FoundTable(spans, [dict(enumerate(line))])
        if line:
            last_bottom = max(c.y1 for c in line)
    if current is not None and len(current.lines) >= 2:
        found.append(current)
    return found


def table_blocks(n: int, table: FoundTable, word_ids: Mapping[int, str]) -> list[BlockTypeDef]:
    """A TABLE block and a CELL block per grid position, as AnalyzeDocument answers them."""
    cells: list[BlockTypeDef] = []
    scores: list[float] = []
    tops = [min(c.y0 for c in line.values()) for line in table.lines]
    bottoms = [max(c.y1 for c in line.values()) for line in table.lines]
    for row, line in enumerate(table.lines, 1):
        for column, (x0, x1) in enumerate(table.spans, 1):
            cell = line.get(column - 1)
            block: BlockTypeDef = {
                "BlockType": "CELL",
                "Id": f"table-{n}-cell-{row}-{column}",
                "RowIndex": row,
                "ColumnIndex": column,
                "RowSpan": 1,
                "ColumnSpan": 1,
                "Geometry": _geometry([x0, tops[row - 1], x1, bottoms[row - 1]]),
                "Page": 1,
            }
            confidence = 95.0
            if cell is not None:
                ids = [word_ids[id(w)] for w in cell.words if id(w) in word_ids]
                block["Relationships"] = [{"Type": "CHILD", "Ids": ids}]
                known = [w.confidence for w in cell.words if w.confidence is not None]
                confidence = mean(known) if known else confidence
            block["Confidence"] = round(confidence, 2)
            scores.append(confidence)
            cells.append(block)
    box = [table.spans[0][0], tops[0], table.spans[-1][1], bottoms[-1]]
    return [
        {
            "BlockType": "TABLE",
            "Id": f"table-{n}",
            "Confidence": round(mean(scores), 2),
            "Geometry": _geometry(box),
            "Relationships": [{"Type": "CHILD", "Ids": [c["Id"] for c in cells]}],
            "EntityTypes": ["STRUCTURED_TABLE"],
            "Page": 1,
        },
        *cells,
    ]
