"""Every row of the pending, stuck and failed lists links to the document's page: locally a
plain link, in CloudWatch a popup that calls the widget function with `{"document": ID}`,
which answers with the page's fragment."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.ops.widgets import render_list
from docflow.readmodel import transitions as t
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.schema import make_report
from docflow.reporting import recorder_for
from docflow.settings import load_settings
from docflow.trace.page import local_link
from status_recorder.widgets import handler
from tests.kit.sandbox import moto_sandbox
from tests.support.aws import TEST_ENV

OLD = "2026-11-20T10:00:00.000+00:00"  # long enough ago to count as stuck
ARN = "arn:aws:lambda:us-east-1:123456789012:function:docflow-widgets"


@pytest.fixture(scope="module")
def docs() -> Iterator[dict[str, DocumentRef]]:
    with moto_sandbox(LocalNames(prefix="tl"), TEST_ENV):
        recorder = recorder_for(load_settings())
        waiting = DocumentRef("b", "in/contract.pdf", "v1", "0A")
        failed = DocumentRef("b", "in/broken.pdf", "v1", "0B")
        for report in (
            make_report(waiting, t.RECEIVED, "intake", payload={"key": waiting.key}, at=OLD),
            make_report(
                waiting,
                t.PENDING_REVIEW,
                "review-0",
                stage_index=0,
                at=OLD,
                payload={"stageName": "legal", "reviewers": ["legal@example.com"]},
            ),
            make_report(failed, t.RECEIVED, "intake", payload={"key": failed.key}),
            make_report(failed, t.FAILED, "failed", payload={"reason": "corrupt"}),
        ):
            recorder.record(report)
        yield {"pending": waiting, "failed": failed, "stuck": waiting}


@pytest.mark.parametrize("kind", ["pending", "stuck", "failed"])
def test_each_list_links_its_rows_to_the_document_page(docs: dict, kind: str) -> None:
    model = ReadModel(load_settings().table_name)
    html = render_list(model, kind, older_than="1s", link=local_link)
    assert f'<a href="/dashboard/doc/{docs[kind].document_id}">' in html


def test_the_cloudwatch_rows_open_the_page_in_a_popup(docs: dict) -> None:
    html = handler({"list": "failed"}, SimpleNamespace(invoked_function_arn=ARN))
    assert 'display="popup"' in html and f'"document": "{docs["failed"].document_id}"' in html
    page = handler(
        {"document": docs["failed"].document_id}, SimpleNamespace(invoked_function_arn=ARN)
    )
    # No durable runner here: the page says so and still shows the read model's part.
    assert "Read-model history" in page and "No execution history" in page
    assert "corrupt" in page
