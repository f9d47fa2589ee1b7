"""AnalyzeDocument's blocks as what the `textract` engine reads: query answers and tables.

Textract answers a flat list of blocks tied by ids (API reference, `Block`): a QUERY block
holds the query's `Text` and `Alias` and names its QUERY_RESULT blocks under an `ANSWER`
relationship; a TABLE block names its CELL blocks under `CHILD`, each CELL has a `RowIndex`
and `ColumnIndex` (1-based) and names its WORD (and SELECTION_ELEMENT) blocks under `CHILD`.
Geometry is a BoundingBox of page ratios from the top-left corner, as our boxes are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Block = Mapping[str, Any]


@dataclass(frozen=True)
class QueryAnswer:
    alias: str
    text: str
    confidence: float  # Textract's, 0..100
    box: list[float] | None


@dataclass(frozen=True)
class Table:
    cells: Mapping[tuple[int, int], str]  # (row, column), 1-based -> the cell's text
    confidence: float  # the cells' mean, 0..100
    box: list[float] | None

    def grid(self) -> list[list[str]]:
        """Rows top to bottom, each as wide as the table (a cell with no words is "")."""
        if not self.cells:
            return []
        rows = max(r for r, _ in self.cells)
        width = max(c for _, c in self.cells)
        return [
            [self.cells.get((r, c), "") for c in range(1, width + 1)] for r in range(1, rows + 1)
        ]


def box_of(geometry: Any) -> list[float] | None:
    """A BoundingBox (Left, Top, Width, Height) as `[x0, y0, x1, y1]`, clipped to the page."""
    box = geometry.get("BoundingBox") if isinstance(geometry, Mapping) else None
    if not isinstance(box, Mapping):
        return None
    try:
        left, top = float(box["Left"]), float(box["Top"])
        right, bottom = left + float(box["Width"]), top + float(box["Height"])
    except (KeyError, TypeError, ValueError):
        return None
    return [max(0.0, min(1.0, v)) for v in (left, top, right, bottom)]


def _related(block: Block, kind: str) -> list[str]:
    return [
        str(i)
        for rel in block.get("Relationships") or ()
        if rel.get("Type") == kind
        for i in rel.get("Ids") or ()
    ]


def query_answers(blocks: Sequence[Block]) -> list[QueryAnswer]:
    """Every answer to every query, under the query's alias (its text where it has none)."""
    by_id = {str(b.get("Id")): b for b in blocks}
    out: list[QueryAnswer] = []
    for block in blocks:
        if block.get("BlockType") != "QUERY":
            continue
        query = block.get("Query") or {}
        alias = str(query.get("Alias") or query.get("Text") or "")
        for answer_id in _related(block, "ANSWER"):
            result = by_id.get(answer_id)
            if result is None or result.get("BlockType") != "QUERY_RESULT":
                continue
            out.append(
                QueryAnswer(
                    alias,
                    str(result.get("Text", "")),
                    float(result.get("Confidence", 0.0)),
                    box_of(result.get("Geometry")),
                )
            )
    return out


def tables(blocks: Sequence[Block]) -> list[Table]:
    """Every TABLE on the page, its cells' text from their words, in the answer's order."""
    by_id = {str(b.get("Id")): b for b in blocks}
    out: list[Table] = []
    for block in blocks:
        if block.get("BlockType") != "TABLE":
            continue
        cells: dict[tuple[int, int], str] = {}
        scores: list[float] = []
        for cell in _children(by_id, block, "CELL"):
            try:
                at = (int(cell["RowIndex"]), int(cell["ColumnIndex"]))
            except (KeyError, TypeError, ValueError):
                continue
            cells[at] = _cell_text(by_id, cell)
            scores.append(float(cell.get("Confidence", 0.0)))
        if cells:
            mean = sum(scores) / len(scores)
            out.append(Table(cells, mean, box_of(block.get("Geometry"))))
    return out


def _children(by_id: Mapping[str, Block], block: Block, kind: str) -> Iterable[Block]:
    for child_id in _related(block, "CHILD"):
        child = by_id.get(child_id)
        if child is not None and child.get("BlockType") == kind:
            yield child


def _cell_text(by_id: Mapping[str, Block], cell: Block) -> str:
    parts = [str(w.get("Text", "")) for w in _children(by_id, cell, "WORD")]
    # A tick box in a cell reads as the checkbox kind's words.
    parts += [
        "true" if s.get("SelectionStatus") == "SELECTED" else "false"
        for s in _children(by_id, cell, "SELECTION_ELEMENT")
    ]
    return " ".join(p for p in parts if p).strip()
