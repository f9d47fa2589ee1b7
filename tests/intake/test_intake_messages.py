"""The intake queue's messages read as Powertools' events: an SQS record whose body is S3's
EventBridge "Object Created" event gives the run it asks for, and any other body, whatever an
uploader or a broken rule puts there, is a BadIntakeMessage naming why (never another error:
the message fails alone and reaches the DLQ)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.intake import BadIntakeMessage, document_from_message

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def record(body: str) -> SQSRecord:
    return SQSRecord({"messageId": "m-1", "receiptHandle": "r-1", "body": body})


def created(**detail: Any) -> dict[str, Any]:
    """S3's EventBridge event, as the intake rule queues it (the user guide's example)."""
    return {
        "version": "0",
        "id": "17793124-05d4-b198-2fde-7ededc63b103",
        "detail-type": "Object Created",
        "source": "aws.s3",
        "account": "111122223333",
        "time": "2021-11-12T00:00:00Z",
        "region": "ca-central-1",
        "resources": ["arn:aws:s3:::amzn-s3-demo-bucket1"],
        "detail": {
            "version": "0",
            "bucket": {"name": "amzn-s3-demo-bucket1"},
            "object": {
                "key": "incoming/invoice 7.pdf",
                "size": 5,
                "etag": "b1946ac92492d2347c6235b4d2611184",
                "version-id": "IYV3p45BT0ac8hjHg1houSdS1a.Mro8e",
                "sequencer": "00617F08299329D189",
            },
            "request-id": "N4N7GDK58NMKJ12R",
            "requester": "123456789012",
            "reason": "PutObject",
            **detail,
        },
    }


def test_the_user_guides_event_is_the_run_it_asks_for() -> None:
    doc = document_from_message(record(json.dumps(created())))
    assert (doc.bucket, doc.key, doc.version_id) == (
        "amzn-s3-demo-bucket1",
        "incoming/invoice 7.pdf",
        "IYV3p45BT0ac8hjHg1houSdS1a.Mro8e",
    )
    assert (doc.sequencer, doc.content_tag) == (
        "00617F08299329D189",
        "b1946ac92492d2347c6235b4d2611184",
    )
    assert doc.event_time_ms == 1_636_675_200_000


def test_an_unversioned_objects_event_is_version_null() -> None:
    event = created(object={"key": "k.pdf", "etag": '"e1"', "sequencer": "0A"})
    doc = document_from_message(record(json.dumps(event)))
    assert (doc.version_id, doc.content_tag, doc.event_time_ms) == ("null", "e1", 1_636_675_200_000)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("{not json", "the message body is not JSON"),
        ("[1, 2]", "the message is not an S3 Object Created event"),
        (json.dumps({**created(), "detail-type": "Object Deleted"}), "not an S3 Object Created"),
        (json.dumps({**created(), "detail": "x"}), "the event has no detail"),
        (json.dumps(created(bucket="x")), "the event names no bucket and key"),
        (json.dumps(created(bucket={"name": ""})), "the event names no bucket and key"),
        (json.dumps(created(object=["k.pdf"])), "the event names no bucket and key"),
        (json.dumps(created(object={"key": 7})), "the event names no bucket and key"),
        (json.dumps(created(object={"key": "k", "sequencer": "0x1"})), "not hexadecimal"),
    ],
)
def test_a_bad_message_is_refused_with_its_reason(body: str, reason: str) -> None:
    with pytest.raises(BadIntakeMessage, match=reason):
        document_from_message(record(body))


@settings(max_examples=300, deadline=None)
@given(
    body=st.one_of(
        JSON.map(json.dumps),
        st.text(),
        # An Object Created event whose detail, bucket or object holds anything at all.
        st.builds(
            lambda d: created(**d), st.dictionaries(st.sampled_from(["bucket", "object"]), JSON)
        ),
        JSON.map(lambda d: json.dumps({**created(), "detail": d})),
    ).map(lambda b: b if isinstance(b, str) else json.dumps(b))
)
def test_any_body_is_a_run_or_a_named_refusal(body: str) -> None:
    try:
        doc = document_from_message(record(body))
    except BadIntakeMessage as refused:
        assert str(refused)
    else:
        assert doc.bucket and doc.key


@settings(max_examples=200, deadline=None)
@given(
    key=st.text(min_size=1, max_size=80),
    bucket=st.from_regex(r"[a-z0-9][a-z0-9.-]{2,20}", fullmatch=True),
    etag=st.text(alphabet="0123456789abcdef-", min_size=1, max_size=40),
    sequencer=st.text(alphabet="0123456789ABCDEFabcdef", max_size=24),
)
def test_the_key_and_the_objects_identity_are_taken_as_sent(
    key: str, bucket: str, etag: str, sequencer: str
) -> None:
    # A key holding `+`, `%41` or a space is the object's own name: decoded as a URL (as S3's
    # own notifications need), it would name another object of the bucket.
    event = created(
        bucket={"name": bucket},
        object={"key": key, "etag": etag, "version-id": "v1", "sequencer": sequencer},
    )
    doc = document_from_message(record(json.dumps(event)))
    assert (doc.bucket, doc.key, doc.content_tag, doc.sequencer) == (bucket, key, etag, sequencer)
