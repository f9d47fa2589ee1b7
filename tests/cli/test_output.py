"""How the CLI prints: tables by display width, progress in a pipe, mail as text."""

from __future__ import annotations

import io

from docflow.cli.mailtext import html_to_text, mail_lines
from docflow.cli.output import Progress, table, width

MAIL_BODY = (
    "<p>A document is waiting for your review at stage <b>legal</b>.</p><p>Document: "
    "incoming/contract.pdf<br>Type: contract, pages: 1</p><p><a "
    'href="http://127.0.0.1:8790/review/v1.k1.abc">Open the review page</a> to approve.</p>'
)


def test_a_table_with_double_width_characters_stays_aligned() -> None:
    text = table([["請求書.pdf", "finalized"], ["invoice.pdf", "failed"]], ["document", "status"])
    lines = text.splitlines()
    header, _, first, second = lines
    # The second column starts at the same display column on every line.
    starts = {
        width(line[: line.index(cell)])
        for line, cell in ((header, "status"), (first, "finalized"), (second, "failed"))
    }
    assert starts == {width("invoice.pdf  ")}, text
    assert all(line == line.rstrip() for line in lines)


def test_progress_in_a_pipe_prints_a_line_a_minute_while_a_document_reads() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = Progress(out, every_s=60, clock=lambda: now[0])
    for t, done in ((0, "0/300 pages"), (30, "100/300 pages"), (61, "180/300 pages")):
        now[0] = t
        progress.update([("scan.pdf", done, "reading"), ("a.pdf", "", "finalized")], 1, 2)
    now[0] = 200
    progress.update([("scan.pdf", "", "finalized"), ("a.pdf", "", "finalized")], 2, 2)
    now[0] = 400  # settled documents are quiet
    progress.update([("scan.pdf", "", "finalized"), ("a.pdf", "", "finalized")], 2, 2)
    assert out.getvalue().splitlines() == [
        "scan.pdf: reading (settled 1/2)",
        "a.pdf: finalized (settled 1/2)",
        "scan.pdf: reading, 180/300 pages (settled 1/2)",
        "scan.pdf: finalized (settled 2/2)",
    ]


def test_mail_is_printed_as_text_with_its_date() -> None:
    text = html_to_text(MAIL_BODY)
    assert "<" not in text
    assert text.splitlines() == [
        "A document is waiting for your review at stage legal.",
        "",
        "Document: incoming/contract.pdf",
        "Type: contract, pages: 1",
        "",
        "Open the review page (http://127.0.0.1:8790/review/v1.k1.abc) to approve.",
    ]
    message = {"to": ["legal@example.com"], "subject": "Review", "body": MAIL_BODY}
    lines = mail_lines({**message, "sentAt": "2026-12-01T21:47:43+00:00"})
    assert lines[0] == "Date: 2026-12-01T21:47:43+00:00"
