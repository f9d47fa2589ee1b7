"""The real-world labelled set: `tests/data/real_invoices/<source>/<name>.pdf`, each with its
hand-written `<name>.truth.json` (see that folder's README for how the truth was written)."""

from __future__ import annotations

import json
from pathlib import Path

from _extraction.generated import Document

REAL = Path(__file__).resolve().parents[2] / "tests" / "data" / "real_invoices"


def real_documents(root: Path = REAL) -> list[Document]:
    docs = []
    for truth_path in sorted(root.glob("*/*.truth.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        pdf = truth_path.with_name(truth["file"])
        docs.append(
            Document(
                ident=f"{truth_path.parent.name}/{pdf.stem}",
                language=truth["language"],
                doc_type=truth["docType"],
                layout="real",
                scanned=bool(truth["scan"]),
                text="",
                truth=dict(truth["fields"]),  # None: the document does not show the field
                pdf=pdf.read_bytes(),
                issuer=truth["issuer"],
                tables=truth.get("tables"),
                lines_add_up=truth.get("linesAddUp"),
            )
        )
    return docs
