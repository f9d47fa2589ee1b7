"""Amazon Textract's AnalyzeExpense on loopback: the local twin of the `textract-expense` engine.

moto does not implement AnalyzeExpense. This extends the Textract emulator (same server, same
injected throttling, same in-flight measurement, so one `AWS_ENDPOINT_URL_TEXTRACT` serves the
OCR reader and the expense engine): it reads the page image with tesseract, finds the fields
with docflow's own rules engine and answers in AnalyzeExpense's shape, so the production
engine's mapping, parsing, throttle retries and cap run unchanged. It emulates the API, not
Textract's accuracy. `bad_values=True` prints values no parser accepts, to show that a bad
answer never fails a document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from docflow.extract.base import PageInput
from docflow.extract.declarations.kinds import AMOUNT
from docflow.extract.declarations.labels import BUILTIN_KINDS
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.local.emulators.textract import Render, TextractEmulator
from docflow.readers.base import Word

if TYPE_CHECKING:
    from mypy_boto3_textract.type_defs import (
        BoundingBoxTypeDef,
        DocumentMetadataTypeDef,
        ExpenseDocumentTypeDef,
        ExpenseFieldTypeDef,
    )

# Canonical name -> the AnalyzeExpense summary type the service would report.
EXPENSE_TYPES = {
    "invoice_number": "INVOICE_RECEIPT_ID",
    "po_number": "PO_NUMBER",
    "invoice_date": "INVOICE_RECEIPT_DATE",
    "due_date": "DUE_DATE",
    "vendor_name": "VENDOR_NAME",
    "net_amount": "SUBTOTAL",
    "tax_amount": "TAX",
    "total_amount": "TOTAL",
}


class ExpenseAnswer(TypedDict):
    """AnalyzeExpense's answer, as much of it as the engine reads (with AWS's types)."""

    DocumentMetadata: DocumentMetadataTypeDef
    ExpenseDocuments: list[ExpenseDocumentTypeDef]


class ExpenseEmulator(TextractEmulator):
    def __init__(
        self, port: int = 0, throttle_rate: float = 0.0, seed: int = 0, bad_values: bool = False
    ) -> None:
        super().__init__(port=port, throttle_rate=throttle_rate, seed=seed)
        self.bad_values = bad_values
        self._rules = RulesEngine()

    def operations(self) -> dict[str, Render]:
        return {**super().operations(), "Textract.AnalyzeExpense": self.expense_answer}

    def expense_answer(
        self, text: str, ocr_confidence: float, words: Sequence[Word] = ()
    ) -> ExpenseAnswer:
        page = PageInput(1, text, "tesseract", ocr_confidence, words=words)
        found = self._rules.extract([page], list(BUILTIN_KINDS)).fields
        currency = found.get("currency")
        summary: list[ExpenseFieldTypeDef] = []
        for name, expense_type in EXPENSE_TYPES.items():
            if name not in found:
                continue
            field = found[name]
            value = field.value
            if self.bad_values and BUILTIN_KINDS[name] == AMOUNT:
                value = "12O,OO.5"  # an OCR-mangled amount no parser accepts
            item: ExpenseFieldTypeDef = {
                "Type": {"Text": expense_type, "Confidence": 99.0},
                "ValueDetection": {
                    "Text": value,
                    "Confidence": round(field.confidence * 100, 2),
                    "Geometry": {"BoundingBox": _geometry(field.box)},
                },
                "PageNumber": 1,
            }
            if currency and BUILTIN_KINDS[name] == AMOUNT:
                item["Currency"] = {
                    "Code": currency.value,
                    "Confidence": round(currency.confidence * 100, 2),
                }
            summary.append(item)
        return {
            "DocumentMetadata": {"Pages": 1},
            "ExpenseDocuments": [
                {"ExpenseIndex": 1, "SummaryFields": summary, "LineItemGroups": []}
            ],
        }


def _geometry(box: list[float] | None) -> BoundingBoxTypeDef:
    """The rules engine's box as AnalyzeExpense's BoundingBox (a fixed one where it has none)."""
    x0, y0, x1, y1 = box or (0.1, 0.1, 0.3, 0.12)
    return {"Width": x1 - x0, "Height": y1 - y0, "Left": x0, "Top": y0}
