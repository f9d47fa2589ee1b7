"""The `textract-expense` engine: Amazon Textract AnalyzeExpense on each rendered page.

AnalyzeExpense's summary field types are mapped to ours, its printed values put in normal form
by the same parsers the rules engine uses, and its confidence (0..100) scaled to 0..1. A value
that does not parse is dropped and listed as rejected, never raised: the checks then send the
document to a person. Calls run under the OCR reader's cross-execution cap (one lease table,
one "textract" slot pool, since both spend the same account's Textract rate) and its throttle
retries.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from docflow import aws
from docflow.extract.base import Extraction, FoundField, PageInput, Wanted, declared
from docflow.extract.declarations.kinds import CURRENCY, DATE
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.extract.declarations.parse import currency_in, find_dates
from docflow.extract.declarations.values import normalize
from docflow.extract.rules_engine.evidence import date_order
from docflow.readers.throttling import ThrottlePolicy

if TYPE_CHECKING:
    from mypy_boto3_textract.type_defs import AnalyzeExpenseResponseTypeDef, ExpenseFieldTypeDef

# AnalyzeExpense summary types -> canonical names. AMOUNT_DUE stands in for TOTAL when a
# document prints only what is left to pay.
TYPE_MAP = {
    "INVOICE_RECEIPT_ID": "invoice_number",
    "PO_NUMBER": "po_number",
    "INVOICE_RECEIPT_DATE": "invoice_date",
    "ORDER_DATE": "invoice_date",
    "DUE_DATE": "due_date",
    "VENDOR_NAME": "vendor_name",
    "SUBTOTAL": "net_amount",
    "TAX": "tax_amount",
    "TOTAL": "total_amount",
    "AMOUNT_DUE": "total_amount",
}
_PREFERRED = {"TOTAL": 1, "AMOUNT_DUE": 0}


class TextractExpenseEngine:
    name = "textract-expense"
    wants_images = True  # AnalyzeExpense reads the page image, not our text

    def __init__(self, policy: ThrottlePolicy, semaphore: Any = None) -> None:
        self.policy, self.semaphore = policy, semaphore

    def _analyze(self, png: bytes) -> AnalyzeExpenseResponseTypeDef:
        def call() -> AnalyzeExpenseResponseTypeDef:
            slot = self.semaphore.slot() if self.semaphore else nullcontext()
            with slot:
                answer: AnalyzeExpenseResponseTypeDef = aws.client("textract").analyze_expense(
                    Document={"Bytes": png}
                )
                return answer

        return self.policy.call(call)

    def extract(self, pages: Sequence[PageInput], wanted: Wanted) -> Extraction:
        # AnalyzeExpense answers its own fixed fields: the declared ones it has a type for.
        names = declared(wanted).names
        result = Extraction(engine=self.name)
        raw: list[tuple[int, ExpenseFieldTypeDef]] = []
        for page in pages:
            if page.image is None:
                continue
            answer = self._analyze(page.image())
            for doc in answer.get("ExpenseDocuments", []):
                raw.extend((page.page, f) for f in doc.get("SummaryFields", []))
        currency = _currency(raw)
        if currency:
            result.fields["currency"] = currency
        order = date_order(None, currency.value if currency else None)
        for page_number, item in raw:
            kind_name = str(item.get("Type", {}).get("Text", ""))
            name = TYPE_MAP.get(kind_name)
            if name is None or name not in names:
                continue
            found = _read(name, item, page_number, order)
            if isinstance(found, str):
                result.rejected.append({"field": name, "reason": found})
                continue
            current = result.fields.get(name)
            rank = (_PREFERRED.get(kind_name, 0), found.confidence)
            if current is None or rank > (0, current.confidence):
                result.fields[name] = found
        result.fields = {n: f for n, f in result.fields.items() if n in names}
        return result


def _read(name: str, item: ExpenseFieldTypeDef, page: int, order: str | None) -> FoundField | str:
    detection = item.get("ValueDetection") or {}
    text = str(detection.get("Text", "")).strip()
    confidence = float(detection.get("Confidence", 0.0)) / 100.0
    kind = BUILTIN_KINDS[name]
    if kind == DATE:
        dates = find_dates(text, order)
        if len(dates) != 1:
            return f"date {text[:40]!r} does not parse"
        value: str | None = dates[0].iso
        if dates[0].ambiguous and not dates[0].resolved:
            confidence = min(confidence, 0.45)
    else:
        value, error = normalize(kind, text)
        if error:
            return f"value {text[:40]!r}: {error}"
    assert value is not None
    box = _box((detection.get("Geometry") or {}).get("BoundingBox"))
    return FoundField(value, max(0.0, min(1.0, confidence)), page, box=box, raw=text)


def _box(geometry: Any) -> list[float] | None:
    """AnalyzeExpense's BoundingBox (Left, Top, Width, Height: ratios of the page from its
    top-left corner) as the fields' `[x0, y0, x1, y1]`."""
    if not isinstance(geometry, dict):
        return None
    try:
        left, top = float(geometry["Left"]), float(geometry["Top"])
        right, bottom = left + float(geometry["Width"]), top + float(geometry["Height"])
    except (KeyError, TypeError, ValueError):
        return None
    return [max(0.0, min(1.0, v)) for v in (left, top, right, bottom)]


def _currency(raw: Sequence[tuple[int, ExpenseFieldTypeDef]]) -> FoundField | None:
    """AnalyzeExpense reports a currency on amount fields; the total's wins."""
    best: FoundField | None = None
    for page, item in raw:
        kind = BUILTIN_KINDS.get(TYPE_MAP.get(str(item.get("Type", {}).get("Text", "")), ""))
        if kind is None or kind == CURRENCY:
            continue
        code_info = item.get("Currency") or {}
        code = str(code_info.get("Code", "")).upper()
        if not code:
            code = currency_in(str((item.get("ValueDetection") or {}).get("Text", ""))) or ""
            confidence = 0.8
        else:
            confidence = float(code_info.get("Confidence", 0.0)) / 100.0
        if code and currency_in(code) == code and (best is None or confidence > best.confidence):
            best = FoundField(code, confidence, page)
    return best
