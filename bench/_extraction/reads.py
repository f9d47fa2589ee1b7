"""Page reads kept between benchmark runs (`--reads DIR`), for measuring a rules change in
seconds instead of re-running tesseract over every scan. Development only: the figures of
record run every read (a reader change is a change too).

One JSON file per PDF, named by the hash of its bytes and the OCR resolution: the batch
results, each batch's manifest, and each page's text and words. Restoring writes them to
the new document version's own keys, so the extract step reads them as it would after a
real read.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from docflow.ids import DocumentRef
from docflow.runtime import runtime
from docflow.storage import batch_manifest_key, page_text_key, page_words_key


class ReadCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, pdf: bytes) -> Path:
        dpi = os.environ.get("DOCFLOW_OCR_DPI", "")
        return self.folder / f"{hashlib.sha256(pdf + dpi.encode()).hexdigest()[:32]}.json"

    def keep(
        self, pdf: bytes, ref: DocumentRef, plan: list[list[int]], batches: list[dict[str, Any]]
    ) -> None:
        store = runtime().store
        manifests, pages = [], {}
        for index, _ in enumerate(plan):
            manifest = store.get_json(batch_manifest_key(ref, index))
            manifests.append(manifest)
            for page in manifest["pages"]:
                words = store.get_json(page["wordsKey"]) if page.get("wordsKey") else None
                pages[str(page["page"])] = {"text": store.get_text(page["key"]), "words": words}
        record = {"batches": batches, "manifests": manifests, "pages": pages}
        self._path(pdf).write_text(json.dumps(record), encoding="utf-8")

    def restore(self, pdf: bytes, ref: DocumentRef) -> list[dict[str, Any]] | None:
        path = self._path(pdf)
        if not path.is_file():
            return None
        record = json.loads(path.read_text(encoding="utf-8"))
        store = runtime().store
        for index, manifest in enumerate(record["manifests"]):
            for page in manifest["pages"]:
                number = int(page["page"])
                kept = record["pages"][str(number)]
                page["key"] = page_text_key(ref, number)
                store.put_text(page["key"], kept["text"])
                if kept["words"] is not None:
                    page["wordsKey"] = page_words_key(ref, number)
                    store.put_json(page["wordsKey"], kept["words"])
            store.put_json(batch_manifest_key(ref, index), manifest)
        return list(record["batches"])
