"""The local stack's moto journal: framing, group commit, and replay that reproduces what moto
answered (version ids, message ids, receipt handles, SES message ids), on a real moto server
in this process, "crashed" by dropping its memory without a clean stop."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.backends import get_backend
from moto.server import ThreadedMotoServer

from docflow.local.durability import moto_state
from docflow.local.durability.durable_state import _STATE, DurableMoto
from docflow.local.durability.journal import Journal, frame, read_records
from docflow.local.tools.ports import free_port
from tests.support.aws import talk_to_a_moto_server


def test_a_torn_last_record_is_dropped_and_cut(tmp_path: Path) -> None:
    path = tmp_path / "j"
    journal = Journal(path)
    for n in range(3):
        journal.wait_durable(journal.append(f"record {n}".encode()))
    journal.close()
    whole = path.stat().st_size
    with path.open("ab") as out:  # a crash in the middle of writing the fourth
        out.write(frame(b"record 3")[:7])
    records, length, torn = read_records(path)
    assert (records, length, torn) == ([b"record 0", b"record 1", b"record 2"], whole, True)
    Journal(path).close()  # reopening cuts the torn bytes, so later records follow whole ones
    assert path.stat().st_size == whole


def test_a_corrupt_record_ends_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "j"
    data = bytearray(frame(b"first") + frame(b"second"))
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert read_records(path)[0] == [b"first"] and read_records(path)[2]


def test_concurrent_writers_share_fsyncs_and_keep_every_record(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j")

    def write(worker: int) -> None:
        for n in range(50):
            journal.wait_durable(journal.append(f"{worker}:{n}".encode()))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    journal.close()
    records = [r.decode() for r in read_records(tmp_path / "j")[0]]
    assert sorted(records) == sorted(f"{w}:{n}" for w in range(8) for n in range(50))
    for worker in range(8):  # each writer's records in its own order
        mine = [r for r in records if r.startswith(f"{worker}:")]
        assert mine == [f"{worker}:{n}" for n in range(50)]
    assert journal.fsyncs <= len(records)


# ---- replay on a real moto server -------------------------------------------------------------
class Moto:
    """A moto server over a state folder; crash() forgets memory, as SIGKILL would."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.server: ThreadedMotoServer | None = None
        self.durable: DurableMoto | None = None

    def boot(self) -> dict[str, Any]:
        from moto.s3.models import s3_backends

        for name in moto_state.SERVICES:
            get_backend(name).reset()
        s3_backends.bucket_accounts.clear()
        self.durable = DurableMoto(self.state)
        report = self.durable.recover()
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
        self.server.start()
        return report

    def client(self, service: str) -> Any:
        assert self.server is not None
        url = f"http://127.0.0.1:{self.server._port}"
        return boto3.client(service, endpoint_url=url, region_name="us-east-1")

    def crash(self) -> None:
        assert self.server is not None
        self.server.stop()  # no compaction, no snapshot: only what the journal holds
        _STATE.journal = None


@pytest.fixture
def moto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Moto]:
    talk_to_a_moto_server(monkeypatch)
    stack = Moto(tmp_path)
    yield stack
    if stack.server is not None:
        stack.crash()
    for name in moto_state.SERVICES:
        get_backend(name).reset()


def _write_some(moto: Moto, tag: str) -> dict[str, Any]:
    s3, sqs, ddb, ses = (moto.client(s) for s in ("s3", "sqs", "dynamodb", "ses"))
    if tag == "a":
        s3.create_bucket(Bucket="journal-bucket")
        s3.put_bucket_versioning(
            Bucket="journal-bucket", VersioningConfiguration={"Status": "Enabled"}
        )
        sqs.create_queue(QueueName="journal-queue")
        ddb.create_table(
            TableName="journal-table",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )
        ses.verify_email_identity(EmailAddress="docflow@example.com")
    queue = sqs.get_queue_url(QueueName="journal-queue")["QueueUrl"]
    versions = [
        s3.put_object(Bucket="journal-bucket", Key=f"{tag}/doc", Body=body)["VersionId"]
        for body in (b"one", b"two")
    ]
    sent = [
        sqs.send_message(QueueUrl=queue, MessageBody=f"{tag}{n}")["MessageId"] for n in range(3)
    ]
    received = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1, VisibilityTimeout=600)
    ddb.put_item(TableName="journal-table", Item={"pk": {"S": tag}, "n": {"N": "1"}})
    mail = ses.send_email(
        Source="docflow@example.com",
        Destination={"ToAddresses": ["r@example.com"]},
        Message={"Subject": {"Data": tag}, "Body": {"Text": {"Data": "review"}}},
    )["MessageId"]
    return {"versions": versions, "sent": sent, "received": received["Messages"][0], "mail": mail}


def _versions(moto: Moto, key: str) -> list[str]:
    listed = moto.client("s3").list_object_versions(Bucket="journal-bucket", Prefix=key)
    return sorted(v["VersionId"] for v in listed["Versions"])


def _sent_mail_ids() -> list[str]:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    return [m.id for m in ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages]


def test_replay_after_a_crash_reproduces_what_moto_answered(moto: Moto) -> None:
    moto.boot()
    first = _write_some(moto, "a")
    moto.durable.compact()  # type: ignore[union-attr]  # a snapshot, then more journal
    second = _write_some(moto, "b")
    mail = _sent_mail_ids()
    moto.crash()

    report = moto.boot()
    assert report["journalRecordsReplayed"] > 0 and report["snapshotGeneration"] == 1
    for tag, wrote in (("a", first), ("b", second)):
        assert _versions(moto, f"{tag}/doc") == sorted(wrote["versions"])
    assert _sent_mail_ids() == mail
    item = moto.client("dynamodb").get_item(TableName="journal-table", Key={"pk": {"S": "b"}})
    assert item["Item"]["n"] == {"N": "1"}
    sqs = moto.client("sqs")
    queue = sqs.get_queue_url(QueueName="journal-queue")["QueueUrl"]
    # The received messages are still in flight (not re-delivered early), and the receipt
    # handles the consumer holds still delete them.
    left = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert (left["ApproximateNumberOfMessages"], left["ApproximateNumberOfMessagesNotVisible"]) == (
        "4",
        "2",
    )
    for wrote in (first, second):
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=wrote["received"]["ReceiptHandle"])
    left = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert left["ApproximateNumberOfMessagesNotVisible"] == "0"
    bodies = set()
    for _ in range(3):
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)
        bodies |= {(m["MessageId"], m["Body"]) for m in got.get("Messages", [])}
    deleted = {first["received"]["MessageId"], second["received"]["MessageId"]}
    expected = {
        (mid, f"{tag}{n}")
        for tag, wrote in (("a", first), ("b", second))
        for n, mid in enumerate(wrote["sent"])
        if mid not in deleted
    }
    assert bodies == expected


def test_a_second_crash_after_recovery_keeps_everything(moto: Moto) -> None:
    moto.boot()
    first = _write_some(moto, "a")
    moto.crash()
    moto.boot()  # replays, then compacts into a snapshot
    second = _write_some(moto, "b")
    moto.crash()
    moto.boot()
    assert _versions(moto, "a/doc") == sorted(first["versions"])
    assert _versions(moto, "b/doc") == sorted(second["versions"])


def test_a_record_torn_by_the_crash_is_dropped_and_the_rest_replayed(moto: Moto) -> None:
    moto.boot()
    first = _write_some(moto, "a")
    moto.crash()
    (journal,) = moto.state.glob("moto.journal.*")
    with journal.open("ab") as out:  # the crash cut the next request's record short
        out.write(frame(b"never acknowledged")[:10])
    report = moto.boot()
    assert report["tornRecordDropped"] and report["journalRecordsRefused"] == 0
    assert _versions(moto, "a/doc") == sorted(first["versions"])
