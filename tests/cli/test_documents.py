"""What `run`, `show` and `stuck` work out before they print: each file's own key, a document
from its key or S3 URI, page counts, the mailbox's dates, and what a stuck document is on."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from docflow import aws
from docflow.cli.documents import object_keys, run_status
from docflow.cli.queries import status_label
from docflow.cli.refs import document_id
from docflow.cli.stuck import waiting_within_deadline
from docflow.cli.watch import pages_read
from docflow.ids import DocumentRef
from docflow.local.durability.moto_state import export_mail
from docflow.settings import load_settings
from tests.support.aws import Stack


def test_files_with_one_name_in_two_folders_get_a_key_each(tmp_path: Path) -> None:
    for folder in ("A", "B"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "doc.pdf").write_bytes(folder.encode())
    (tmp_path / "x.pdf").write_bytes(b"x")
    a, b, x = tmp_path / "A/doc.pdf", tmp_path / "B/doc.pdf", tmp_path / "x.pdf"
    keyed, notes = object_keys([a, b, x, x], "incoming/")
    assert [key for _, key in keyed] == [
        "incoming/A/doc.pdf",
        "incoming/B/doc.pdf",
        "incoming/x.pdf",
    ]
    assert any("named more than once" in n for n in notes)
    assert any("2 files are named doc.pdf; each gets its own key" in n for n in notes)
    # Names that do not collide keep today's keys (a re-run is a new version of the same).
    assert object_keys([a, x], "incoming/")[0] == [(a, "incoming/doc.pdf"), (x, "incoming/x.pdf")]


def test_a_document_is_named_by_its_id_its_key_or_its_s3_uri() -> None:
    expected = DocumentRef("docflow-documents", "incoming/x.pdf").document_id
    assert document_id("incoming/x.pdf") == expected
    assert document_id("s3://docflow-documents/incoming/x.pdf") == expected
    assert document_id(expected) == expected
    other = DocumentRef("their-bucket", "in/x.pdf").document_id
    assert document_id("s3://their-bucket/in/x.pdf") == other


def test_pages_read_counts_page_texts_not_the_words_beside_them(stack: Stack) -> None:
    s3, bucket = aws.client("s3"), load_settings().artifact_bucket
    for page in range(1, 9):
        s3.put_object(Bucket=bucket, Key=f"docs/d-1/v-1/pages/{page:05d}.txt", Body=b"text")
        s3.put_object(Bucket=bucket, Key=f"docs/d-1/v-1/pages/{page:05d}.words.json", Body=b"{}")
    assert pages_read("docs/d-1/v-1") == 8


def test_the_mailbox_dates_each_message_once(stack: Stack, tmp_path: Path) -> None:
    ses = aws.client("ses")
    ses.verify_email_identity(EmailAddress="docflow@example.com")
    message = {"Subject": {"Data": "Review"}, "Body": {"Html": {"Data": "<p>hi</p>"}}}
    ses.send_email(
        Source="docflow@example.com", Destination={"ToAddresses": ["a@x.org"]}, Message=message
    )
    path = tmp_path / "mail.json"
    export_mail(path)
    (first,) = json.loads(path.read_text())
    assert datetime.fromisoformat(first["sentAt"]).tzinfo is not None
    stamped = {**first, "sentAt": "2026-01-01T00:00:00+00:00"}
    path.write_text(json.dumps([stamped]))
    export_mail(path)  # a later export keeps the date it first gave
    assert json.loads(path.read_text())[0]["sentAt"] == "2026-01-01T00:00:00+00:00"


def test_a_review_within_its_deadline_is_not_stuck_one_past_it_is() -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    waiting = {"status": "pending-review"}
    later = (now + timedelta(days=2)).isoformat()
    earlier = (now - timedelta(minutes=1)).isoformat()
    assert waiting_within_deadline({**waiting, "reviewDeadline": later}, now)
    assert not waiting_within_deadline({**waiting, "reviewDeadline": earlier}, now)
    assert not waiting_within_deadline({"status": "reading", "reviewDeadline": later}, now)


def test_run_exits_5_when_a_document_failed_and_1_on_a_timeout_saying_it_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    done, failed, reading = ({"status": s} for s in ("finalized", "failed", "reading"))
    assert run_status([done, {"status": "pending-review"}], 600) == 0
    assert run_status([done, reading], 600) == 1
    said = capsys.readouterr().err
    assert "timed out after 600 s with 1 document still processing; processing goes on" in said
    assert run_status([failed, reading], 600) == 5
    assert "1 document failed" in capsys.readouterr().err
    # Nothing started at all: where to look.
    queued = {"status": "queued"}
    assert run_status([queued, queued], 600, Path("/s")) == 1
    assert "none of them started; the stack's logs say why: /s/stackd.log and /s/host.log" in (
        capsys.readouterr().err
    )
    assert run_status([queued, reading], 600, Path("/s")) == 1
    assert "none of them started" not in capsys.readouterr().err


def test_run_polls_only_unsettled_documents_and_lists_pages_only_while_one_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every poll asks the read model for the documents still moving (a settled one is never
    asked again), and S3's page list only for a document being read, every 2 s at most."""
    from types import SimpleNamespace

    from docflow.cli import documents, watch

    submitted = [
        {"documentId": d, "runId": f"run-{d}", "version": "v", "path": f"{d}.pdf",
         "key": f"incoming/{d}.pdf", "bucket": "b", "prefix": f"docs/{d}/v"}
        for d in ("a", "b", "c")
    ]  # fmt: skip
    script = [  # the read model's answer on each poll
        {"a": "finalized", "b": "reading", "c": "received"},
        {"b": "reading", "c": "reading"},
        {"b": "reading", "c": "finalized"},
        {"b": "reading"},
        {"b": "reading"},
        {"b": "reading"},
        {"b": "pending-review"},
    ]
    asked: list[set[str]] = []
    counted: list[tuple[str, float]] = []
    clock = [1000.0]  # a monotonic clock is far from zero

    class Model:
        def states(self, ids: Any) -> dict[str, dict[str, Any]]:
            wanted = set(ids)
            asked.append(wanted)
            answer = script[min(len(asked), len(script)) - 1]
            return {
                d: {"runId": f"run-{d}", "status": s, "pages": 10}
                for d, s in answer.items()
                if d in wanted
            }

    def pages_read(prefix: str) -> int:
        counted.append((prefix, clock[0]))
        return 3

    monkeypatch.setattr(
        documents, "stack", lambda args, start=False: SimpleNamespace(state=tmp_path)
    )
    monkeypatch.setattr(documents, "upload", lambda paths, key, prefix: submitted)
    monkeypatch.setattr(documents, "files", lambda paths: [])
    monkeypatch.setattr(documents, "model", Model)
    monkeypatch.setattr(watch, "pages_read", pages_read)
    monkeypatch.setattr(documents, "print_review_links", lambda *a: None)
    fake_time = SimpleNamespace(
        monotonic=lambda: clock[0], sleep=lambda s: clock.__setitem__(0, clock[0] + s)
    )
    monkeypatch.setattr(documents, "time", fake_time)
    monkeypatch.setattr(watch, "time", fake_time)
    args = SimpleNamespace(paths=["x"], timeout=600, quiet=True, json=True)
    assert documents.run_paths(args, "incoming/") == 0
    assert asked[0] == {"a", "b", "c"}
    assert asked[1:3] == [{"b", "c"}, {"b", "c"}]
    assert all(ids == {"b"} for ids in asked[3:])
    assert {prefix for prefix, _ in counted} == {"docs/b/v", "docs/c/v"}
    times_b = [t for prefix, t in counted if prefix == "docs/b/v"]
    assert all(later - earlier >= 2 for earlier, later in itertools.pairwise(times_b))


def test_the_history_says_why_a_run_ended() -> None:
    archived = {"status": "archived", "payload": {"reason": "superseded"}}
    assert status_label(archived) == "archived (superseded)"
    assert status_label({"status": "reading", "payload": {"pages": 3}}) == "reading"
