"""Shared fixtures: moto for AWS, the template's resources, and the durable test runner."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.local.tools.sandbox import moto_sandbox

RULES_FAST = Path(__file__).with_name("rules_fast.toml")

TEST_ENV = {
    "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.001",
    "DOCFLOW_THROTTLE_MAX_DELAY_S": "0.01",
    "DOCFLOW_EXECUTION_TIMEOUT_S": "86400",
    "DOCFLOW_RULES_PATH": str(RULES_FAST),
    "DOCFLOW_REVIEW_BASE_URL": "http://127.0.0.1:8790",
}


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


@pytest.fixture
def stack() -> Iterator[Stack]:
    with moto_sandbox(LocalNames(prefix="t"), TEST_ENV) as names:
        yield Stack(names)


def result_json(result: Any) -> dict[str, Any]:
    return json.loads(result.result)
