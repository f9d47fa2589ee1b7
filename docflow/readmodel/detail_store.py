"""Where a report's moved payload lives (detail.py): S3, under `storage.report_detail_key`.

Written by the recorder before the items that name it, so a reader never finds a key whose
object is not there yet; a report sent again writes the same bytes under the same key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.readmodel.detail import Loader
from docflow.storage import DocumentStore


class ReportDetails:
    def __init__(self, artifact_bucket: str) -> None:
        self.store = DocumentStore(artifact_bucket)

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
