"""The dashboard's lists say which function version each document's execution runs on, so an
operator draining an old version sees the documents that still hold it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from docflow.ops.widgets import VERSION_HEADER, rows_for


@pytest.mark.parametrize("kind", ["pending", "stuck", "failed"])
def test_each_list_has_the_code_version_column(kind: str) -> None:
    item = {"documentId": "d-1", "key": "in/a.pdf", "functionVersion": "3", "status": "reading"}
    headers, cells = rows_for(kind, [item], datetime.now(UTC))
    column = headers.index(VERSION_HEADER)
    assert cells[0][column] == "3"
    older = rows_for(kind, [{"documentId": "d-2"}], datetime.now(UTC))[1]
    assert older[0][column] == ""  # a document recorded before versions: an empty cell
