"""Where a document's bytes and derived artifacts live in S3.

Artifact keys are immutable and named by document id, version and page, so a step that runs
twice writes the same object twice (an idempotent upsert) and checkpoints carry keys, never
text. A pile's batch job keeps its files under `piles/jobs/<job>/` (records, the model's input
and output), the prefix the job's service role may read and write.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from typing import Any
from urllib.parse import urlencode

from botocore.exceptions import ClientError

from docflow import aws
from docflow.errors import EMPTY_FILE, SOURCE_MISSING, TOO_LARGE, IntakeError
from docflow.ids import DocumentRef, version_tag

_MISSING_CODES = {"NoSuchKey", "NoSuchVersion", "404", "NoSuchBucket", "InvalidArgument"}

# An S3 lifecycle filter matches only a key's beginning, and page text and previews sit beside
# the finalized record under docs/<id>/<version>/: they carry this tag, by which the artifact
# bucket's rules (template.yaml, PageTextExpirationDays and PreviewExpirationDays) expire them.
EXPIRY_TAG = "docflow-expiry"
PAGE_TEXT_EXPIRY = "page-text"
PREVIEW_EXPIRY = "preview"


def expiry_tagging(kind: str) -> str:
    """The `Tagging` argument of a PutObject whose object expires as `kind`."""
    return urlencode({EXPIRY_TAG: kind})


def job_prefix(job: str) -> str:
    return f"piles/jobs/{job}"


def records_key(job: str) -> str:
    return f"{job_prefix(job)}/records.json"


def input_prefix(job: str) -> str:
    return f"{job_prefix(job)}/input/"


def part_file(part: int) -> str:
    return f"records-{part:05d}.jsonl"


def output_prefix(job: str) -> str:
    return f"{job_prefix(job)}/output/"


def artifact_prefix(doc: DocumentRef) -> str:
    return f"docs/{doc.document_id}/{doc.version_tag}"


def page_text_key(doc: DocumentRef, page: int) -> str:
    return f"{artifact_prefix(doc)}/pages/{page:05d}.txt"


def page_words_key(doc: DocumentRef, page: int) -> str:
    """A page's words with their boxes and OCR confidences, beside its text (JSON)."""
    return f"{artifact_prefix(doc)}/pages/{page:05d}.words.json"


def batch_manifest_key(doc: DocumentRef, batch: int) -> str:
    return f"{artifact_prefix(doc)}/batches/{batch:04d}.json"


def result_key(doc: DocumentRef) -> str:
    """The finalized record; an upsert keyed by document and version."""
    return f"{artifact_prefix(doc)}/final.json"


def archive_key(doc: DocumentRef) -> str:
    return f"{artifact_prefix(doc)}/archived.json"


def fields_key(doc: DocumentRef) -> str:
    """The extract step's full answer: values, confidences, pages, boxes, checks, usage."""
    return f"{artifact_prefix(doc)}/fields.json"


def einvoice_key(doc: DocumentRef) -> str:
    """An e-invoice's EN 16931 data as read (the invoice, its validation report, where it came
    from): JSON, written once by the read e-invoice step (docs/einvoice.md)."""
    return f"{artifact_prefix(doc)}/einvoice.json"


def enrichment_key(doc: DocumentRef) -> str:
    """The enrich step's full answer: summary, risk, how it was made, tokens."""
    return f"{artifact_prefix(doc)}/enrichment.json"


def enrich_request_key(doc: DocumentRef) -> str:
    """The on-demand Converse request (forced tool), written once by the enrich step."""
    return f"{artifact_prefix(doc)}/enrich-request.json"


def packet_plan_key(doc: DocumentRef) -> str:
    """A packet's page calls (type, start score, reason codes per page): the plan step's
    detail, which the split stage's page reads; the checkpoint keeps parts and this key."""
    return f"{artifact_prefix(doc)}/packet/plan.json"


def report_detail_key(document_id: str, version: str, seq: int, status: str, digest: str) -> str:
    """A status report's whole payload when it does not fit the read model's item (the item
    keeps counts, sums and this key: docflow/readmodel/detail.py). Named by the payload's
    digest, so a report sent twice writes the same object and two different payloads for one
    position never overwrite each other."""
    return f"docs/{document_id}/{version_tag(version)}/reports/{seq:07d}-{status}-{digest}.json"


REPORT_DETAIL_KEY = re.compile(
    r"^docs/(d-[0-9a-f]{24})/v-[0-9a-f]{16}/reports/\d{7}-[a-z-]{1,32}-[0-9a-f]{16}\.json$"
)  # report_detail_key's


def part_key(packet: DocumentRef, first: int, last: int) -> str:
    """A packet's part as a PDF of its own, named from the packet's id, version and pages:
    immutable (the same pages of the same version), the source of the part's own run. Outside
    `docs/`, so no page-text lifecycle expires it while its document lives."""
    return f"packets/{packet.document_id}/{packet.version_tag}/{first:05d}-{last:05d}.pdf"


PART_KEY = re.compile(r"^packets/d-[0-9a-f]{24}/v-[0-9a-f]{16}/\d{5}-\d{5}\.pdf$")  # part_key's


PILE_MANIFEST = "_manifest.json"


def pile_manifest_key(pile_prefix: str, pile: str) -> str:
    """A pile's manifest in the document bucket: `{"expected": N}`, uploaded before its
    documents, under the same folder (`<pile prefix><pile>/`)."""
    return f"{pile_prefix}{pile}/{PILE_MANIFEST}"


def enrich_batch_input_key(doc: DocumentRef) -> str:
    """A pile document's batch record `modelInput` (prompted JSON), read by the batcher."""
    return f"{artifact_prefix(doc)}/enrich-batch-input.json"


class _SourceCache:
    """A few recent source PDFs, so each batch step of a document does not download it again.

    Only versioned objects are cached: a version id names immutable bytes.
    """

    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self._items: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()
        self._size = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def get(self, ident: tuple[str, str, str]) -> bytes | None:
        with self._lock:
            data = self._items.get(ident)
            if data is not None:
                self._items.move_to_end(ident)
            return data

    def put(self, ident: tuple[str, str, str], data: bytes) -> None:
        if len(data) > self._max:
            return
        with self._lock:
            if ident in self._items:
                return
            self._items[ident] = data
            self._size += len(data)
            while self._size > self._max:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0


_cache = _SourceCache()


class DocumentStore:
    """S3 access for sources (read-only) and artifacts (write-once keys)."""

    def __init__(self, artifact_bucket: str) -> None:
        self.artifact_bucket = artifact_bucket

    @property
    def _s3(self) -> Any:
        return aws.client("s3")

    def _version_args(self, doc: DocumentRef) -> dict[str, str]:
        return {"VersionId": doc.version} if doc.version != "null" else {}

    def source_bytes(self, doc: DocumentRef, max_bytes: int) -> bytes:
        """The document's bytes, refusing empty and oversized objects before downloading:
        GetObject's answer gives the size before its body is read (one request, where a
        HeadObject first made two)."""
        ident = (doc.bucket, doc.key, doc.version)
        cached = _cache.get(ident) if doc.version != "null" else None
        if cached is not None:
            return cached
        try:
            body = self._s3.get_object(Bucket=doc.bucket, Key=doc.key, **self._version_args(doc))
        except ClientError as exc:
            if aws.error_code(exc) in _MISSING_CODES:
                raise IntakeError(
                    "the uploaded object no longer exists at that version", SOURCE_MISSING
                ) from exc
            raise
        size = int(body["ContentLength"])
        if size == 0 or size > max_bytes:
            body["Body"].close()  # not downloaded
            if size == 0:
                raise IntakeError("the uploaded object is empty (0 bytes)", EMPTY_FILE)
            raise IntakeError(
                f"the document is {size} bytes, over the limit of {max_bytes}", TOO_LARGE
            )
        data: bytes = body["Body"].read()
        if doc.version != "null":
            _cache.put(ident, data)
        return data

    def put_text(self, key: str, text: str, expiry: str | None = None) -> None:
        self._s3.put_object(
            Bucket=self.artifact_bucket,
            Key=key,
            Body=text.encode("utf-8"),
            ContentType="text/plain; charset=utf-8",
            **({"Tagging": expiry_tagging(expiry)} if expiry else {}),
        )

    def get_text(self, key: str) -> str:
        body = self._s3.get_object(Bucket=self.artifact_bucket, Key=key)["Body"].read()
        return str(body.decode("utf-8"))

    def get_json(self, key: str) -> Any:
        return json.loads(self.get_text(key))

    def put_json(self, key: str, value: Any, expiry: str | None = None) -> None:
        self._s3.put_object(
            Bucket=self.artifact_bucket,
            Key=key,
            Body=json.dumps(value, sort_keys=True, separators=(",", ":")).encode("utf-8"),
            ContentType="application/json",
            **({"Tagging": expiry_tagging(expiry)} if expiry else {}),
        )


def clear_source_cache() -> None:
    _cache.clear()


def match_key(doc: DocumentRef) -> str:
    """An invoice's match against its order: its lines, the order's, what was received, the
    pairs and every difference, the order's billed history (JSON; docs/matching.md)."""
    return f"{artifact_prefix(doc)}/match.json"
