"""The document a run carries, as one typed record, on the ground floor: its summary
(`summary.py`: `DocumentSummary`), its key fields and the checks on them (`fields.py`: `Field`,
`Check`), and the JSON shapes of what it only shows (`shown.py`). Imports nothing of docflow:
every room may read the record, and none owns it."""

from docflow.document.fields import ABSENT, Check, Field
from docflow.document.summary import DocumentSummary, Triage

__all__ = ["ABSENT", "Check", "DocumentSummary", "Field", "Triage"]
