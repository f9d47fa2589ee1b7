"""The read model under test: reports as the pipeline sends them, the recorder and the queries
(the fixtures that make its tables, `moto_once` and `shared`, are in conftest)."""

from __future__ import annotations

import uuid
from typing import Any

from docflow.ids import DocumentRef
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.recorder import StatusRecorder
from docflow.readmodel.schema import Report, make_report
from docflow.settings import load_settings


def new_doc(generation: int = 0, sequencer: str = "0A") -> DocumentRef:
    return DocumentRef("bucket", f"k/{uuid.uuid4()}.pdf", "v1", sequencer, generation)


def at(n: int) -> str:
    return f"2026-11-29T10:{n // 60:02d}:{n % 60:02d}.000+00:00"


def report(
    doc: DocumentRef, status: str, stage_index: int | None = None, n: int = 0, **payload: Any
) -> Report:
    stage = f"review-{stage_index}" if stage_index is not None else status
    return make_report(doc, status, stage, stage_index=stage_index, payload=payload, at=at(n))


def recorder() -> StatusRecorder:
    return StatusRecorder(load_settings().table_name)


def model() -> ReadModel:
    return ReadModel(load_settings().table_name)


def state(doc: DocumentRef) -> dict[str, Any]:
    return model().show(doc.document_id)["state"]
