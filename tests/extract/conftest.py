"""Fixtures of the extraction tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from docflow import aws
from tests.support.engines import Endpoint


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    """Points a service's clients at a URL (`endpoint("TEXTRACT", emulator.url)`) for the test."""

    def point(service: str, url: str) -> None:
        monkeypatch.setenv(f"AWS_ENDPOINT_URL_{service}", url)
        aws.reset_clients()

    yield point
    aws.reset_clients()
