"""Run identity: names the durable service accepts, whatever the key looks like."""

from __future__ import annotations

import pytest

from docflow.errors import IntakeError
from docflow.ids import EXECUTION_NAME_RE, DocumentRef

ODD_KEYS = ["a b/ç ñ 文书.pdf", "x" * 1024, "../..//?&=#%.pdf", "\t\n"]


@pytest.mark.parametrize("key", ODD_KEYS)
@pytest.mark.parametrize("generation", [0, 1, 999_999])
def test_execution_names_fit_the_service_pattern(key: str, generation: int) -> None:
    doc = DocumentRef("bucket", key, "3HL4kqtJvjVBH40Nrjfkd", "0A", generation, "etag-1")
    assert EXECUTION_NAME_RE.match(doc.execution_name), doc.execution_name


def test_identity_follows_content_not_version() -> None:
    first = DocumentRef("b", "k.pdf", "v1", "0A", content_tag="e1")
    again = DocumentRef("b", "k.pdf", "v2", "0B", content_tag="e1")  # same bytes re-uploaded
    changed = DocumentRef("b", "k.pdf", "v3", "0C", content_tag="e2")
    assert first.execution_name == again.execution_name
    assert changed.execution_name != first.execution_name
    assert first.document_id == changed.document_id  # one document, several runs
    assert changed.run_order > first.run_order
    assert DocumentRef.from_event(first.to_event()) == first


@pytest.mark.parametrize(
    "bad", [None, [], {"bucket": "b"}, {"bucket": "b", "key": "k", "generation": -1}]
)
def test_bad_execution_input_is_an_intake_error(bad: object) -> None:
    with pytest.raises(IntakeError):
        DocumentRef.from_event(bad)
