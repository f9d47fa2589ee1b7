"""Key fields of invoices and purchase orders: one interface (`base.FieldEngine`), three
engines (`rules`, `textract_expense`, `bedrock`), the checks that route to a person and the
validation of reviewers' corrections. The `rules` engine's parts: `layout` (cells from word
boxes), `matching` and `labels.toml` (labels in seven languages), `segments` (where a label
points), `identifiers`, `amounts` (reconciliation), `evidence`, `vendor`, `parse`.

May import docflow.readers (the `Word` a reader returns), docflow.aws and docflow.settings;
never docflow.pipeline or docflow.classify."""

from docflow.extract.base import Extraction, FieldEngine, FoundField, PageInput
from docflow.extract.factory import build_engine

__all__ = ["Extraction", "FieldEngine", "FoundField", "PageInput", "build_engine"]
