"""Key fields of invoices and purchase orders: one interface (`base.FieldEngine`), three
engines (`rules`, `textract_expense`, `bedrock`), the checks that route to a person and the
validation of reviewers' corrections."""

from docflow.extract.base import Extraction, FieldEngine, FoundField, PageInput
from docflow.extract.factory import build_engine

__all__ = ["Extraction", "FieldEngine", "FoundField", "PageInput", "build_engine"]
