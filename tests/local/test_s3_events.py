"""moto's S3 EventBridge events as S3 sends them (docflow/local/fidelity/s3_events.py): an upload
reaches the intake queue through the template's rule with a sequencer that grows and the ETag
under `etag`, and the starter reads from it the run of that very version."""

from __future__ import annotations

import json

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from docflow import aws
from docflow.intake import document_from_message
from docflow.local.fidelity.s3_events import make_s3_events_as_s3_sends_them
from docflow.local.resources import LocalNames, provision
from tests.kit.sandbox import moto_sandbox


def test_an_upload_is_queued_as_s3s_eventbridge_event_and_read_as_its_version() -> None:
    make_s3_events_as_s3_sends_them()
    names = LocalNames(prefix="s3events")
    with moto_sandbox(names):
        provision(names)  # with the intake rule and queue
        s3, sqs = aws.client("s3"), aws.client("sqs")
        bucket = names("DocumentBucket")
        put = [
            s3.put_object(Bucket=bucket, Key="incoming/a.pdf", Body=body) for body in (b"1", b"2")
        ]
        url = sqs.get_queue_url(QueueName=names("IntakeQueue"))["QueueUrl"]
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]

    objects = [json.loads(m["Body"])["detail"]["object"] for m in messages]
    assert all("etag" in o and "eTag" not in o for o in objects)
    docs = {
        d.version_id: d
        for d in (document_from_message(SQSRecord({"body": m["Body"]})) for m in messages)
    }
    first, second = (docs[p["VersionId"]] for p in put)
    assert [first.content_tag, second.content_tag] == [p["ETag"].strip('"') for p in put]
    # moto sends one constant sequencer: the later upload's event must order after the first.
    assert int(second.sequencer, 16) > int(first.sequencer, 16)
