"""What a user may type where a command wants a document: its id, its S3 key, or an S3 URI.

A document id is a pure function of the bucket and the key (docflow.ids), so a key or a URI
names the document without asking anything: a file uploaded with `aws s3 cp` is found by the
key it was uploaded to.
"""

from __future__ import annotations

import re

from docflow.ids import DocumentRef

_DOCUMENT_ID = re.compile(r"^d-[0-9a-f]{24}$")


def local_document_bucket() -> str:
    from docflow.local.resources import LocalNames

    return LocalNames(prefix="docflow")("DocumentBucket")


def local_artifact_bucket() -> str:
    from docflow.local.resources import LocalNames

    return LocalNames(prefix="docflow")("ArtifactBucket")


def document_id(ref: str, bucket: str | None = None) -> str:
    """`d-...` as it is; `s3://bucket/key` is that object (the key as the aws CLI writes it,
    not URL-encoded); anything else is a key in `bucket` (default: the local stack's document
    bucket, or its artifact bucket for a packet's part, `packets/d-.../v-.../NNNNN-NNNNN.pdf`,
    the key `pending` and `show` print for a part)."""
    ref = ref.strip()
    if _DOCUMENT_ID.match(ref):
        return ref
    match = re.match(r"^s3://([^/]+)/(.+)$", ref)
    if match:
        return DocumentRef(match.group(1), match.group(2)).document_id
    if ref.startswith("s3://"):
        raise ValueError(f"{ref!r} names no object: an S3 URI is s3://BUCKET/KEY")
    from docflow.storage import PART_KEY

    key = ref.lstrip("/")
    if bucket is None and PART_KEY.match(key):
        bucket = local_artifact_bucket()
    return DocumentRef(bucket or local_document_bucket(), key).document_id
