"""moto with the template's resources, the settings the tests run under, and the runner's result."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames

RULES_FAST = Path(__file__).parent.parent / "rules_fast.toml"


TEST_ENV = {
    "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.001",
    "DOCFLOW_THROTTLE_MAX_DELAY_S": "0.01",
    "DOCFLOW_EXECUTION_TIMEOUT_S": "86400",
    "DOCFLOW_RULES_PATH": str(RULES_FAST),
    "DOCFLOW_REVIEW_BASE_URL": "http://127.0.0.1:8790",
}


def talk_to_a_moto_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients with test credentials and no endpoint override: the test names its server."""
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "test")
    for key in [k for k in os.environ if k.startswith("AWS_ENDPOINT_URL")]:
        monkeypatch.delenv(key)


@dataclass
class Stack:
    """moto with the template's buckets, tables and secret, and settings pointing at them."""

    names: LocalNames

    @property
    def bucket(self) -> str:
        return self.names("DocumentBucket")

    def upload(self, key: str, data: bytes) -> DocumentRef:
        answer = aws.client("s3").put_object(Bucket=self.bucket, Key=key, Body=data)
        return DocumentRef(
            bucket=self.bucket, key=key, version_id=answer["VersionId"], sequencer=f"{len(key):04X}"
        )

    def event(self, doc: DocumentRef) -> str:
        return json.dumps(doc.to_event())


def result_json(result: Any) -> dict[str, Any]:
    return json.loads(result.result)
