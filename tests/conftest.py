"""Shared fixtures: moto for AWS, the template's resources, and the durable test runner."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames, provision
from docflow.runtime import use_runtime
from docflow.settings import load_settings
from docflow.storage import clear_source_cache

RULES_FAST = Path(__file__).with_name("rules_fast.toml")

BASE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "DOCFLOW_REPORTER": "inprocess",
    "DOCFLOW_THROTTLE_BASE_DELAY_S": "0.001",
    "DOCFLOW_THROTTLE_MAX_DELAY_S": "0.01",
    "DOCFLOW_EXECUTION_TIMEOUT_S": "86400",
    "DOCFLOW_RULES_PATH": str(RULES_FAST),
    "DOCFLOW_REVIEW_BASE_URL": "http://127.0.0.1:8790",
}


def reset_process_state() -> None:
    aws.reset_clients()
    load_settings.cache_clear()
    use_runtime(None)
    clear_source_cache()


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
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    names = LocalNames(prefix="t")
    for key, value in {**BASE_ENV, **names.settings_env()}.items():
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith("AWS_ENDPOINT_URL")]:
        monkeypatch.delenv(key)
    reset_process_state()
    with mock_aws():
        provision(names, with_intake=False)
        yield Stack(names)
    reset_process_state()


def result_json(result: Any) -> dict[str, Any]:
    return json.loads(result.result)
