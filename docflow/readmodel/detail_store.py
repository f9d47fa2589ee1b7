"""Where a report's moved payload lives (detail.py): S3, under `storage.report_detail_key`.

Written by the recorder before the items that name it, so a reader never finds a key whose
object is not there yet; a report sent again writes the same bytes under the same key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.readmodel import detail
from docflow.readmodel.detail import Loader
from docflow.readmodel.schema import Report
from docflow.storage import DocumentStore, report_detail_key


class ReportDetails:
    def __init__(self, artifact_bucket: str) -> None:
        self.store = DocumentStore(artifact_bucket)

    def fitted(self, report: Report) -> Report:
        """The report as the items keep it: itself, or when its payload is over the items'
        budget, its compact form, the whole stored here first (detail.py)."""
        if detail.size(report.payload) <= detail.INLINE_BYTES:
            return report
        digest = detail.digest(report.run_id, report.event_id, report.payload)
        key = report_detail_key(
            report.document_id, report.version, report.seq, report.status, digest
        )
        ids = {
            "documentId": report.document_id,
            "version": report.version,
            "runId": report.run_id,
            "eventId": report.event_id,
            "status": report.status,
            "seq": report.seq,
        }
        self.put(key, ids, report.payload)
        return replace(report, payload=detail.fit(report.payload, key).payload)

    def put(self, key: str, ids: Mapping[str, Any], whole: Mapping[str, Any]) -> None:
        """`ids`: which report it is (document, version, run, event, status, seq)."""
        self.store.put_json(key, {**ids, "payload": dict(whole)})

    def get(self, key: str) -> Mapping[str, Any] | None:
        """The whole payload stored under `key`, or None when it is not there."""
        try:
            stored = self.store.get_json(key)
        except ClientError as exc:
            if aws.error_code(exc) in ("NoSuchKey", "404", "NoSuchBucket"):
                return None
            raise
        payload = stored.get("payload") if isinstance(stored, dict) else None
        return payload if isinstance(payload, dict) else None

    def loader(self, seen: Mapping[str, Mapping[str, Any]] | None = None) -> Loader:
        """`get`, answering from `seen` ({key: whole payload}) first and reading each other
        key once."""
        cache: dict[str, Mapping[str, Any] | None] = dict(seen or {})

        def load(key: str) -> Mapping[str, Any] | None:
            if key not in cache:
                cache[key] = self.get(key)
            return cache[key]

        return load
