"""Putting a document into the stack's bucket, and the event S3 sends EventBridge for it: the
tests and the benchmarks both upload documents and redeliver their events."""

from __future__ import annotations

import time
from typing import TypedDict

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.tools.queued import EventEnvelope


class S3Bucket(TypedDict):
    name: str


# S3's "Object Created" event as EventBridge delivers it: the object and the detail, in the bus's
# envelope (names that are not identifiers take the call form).
S3Object = TypedDict("S3Object", {"key": str, "version-id": str, "etag": str})


class ObjectCreatedDetail(TypedDict):
    version: str
    bucket: S3Bucket
    object: S3Object
    reason: str


class ObjectCreatedEvent(EventEnvelope):
    detail: ObjectCreatedDetail


def put_document(bucket: str, key: str, data: bytes) -> DocumentRef:
    """Upload `data`; the run its S3 event asks for (identified by content: the ETag)."""
    put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=data)
    return DocumentRef(bucket, key, put["VersionId"], content_tag=put["ETag"].strip('"'))


def object_created_event(doc: DocumentRef, at: float | None = None) -> ObjectCreatedEvent:
    """The "Object Created" event for this version, as the EventBridge rule queues it."""
    return {
        "version": "0",
        "id": f"redelivery-{time.time_ns()}",
        "detail-type": "Object Created",
        "source": "aws.s3",
        "account": "123456789012",
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at)),
        "region": "us-east-1",
        "resources": [f"arn:aws:s3:::{doc.bucket}"],
        "detail": {
            "version": "0",
            "bucket": {"name": doc.bucket},
            "object": {"key": doc.key, "version-id": doc.version, "etag": doc.content_tag},
            "reason": "PutObject",
        },
    }
