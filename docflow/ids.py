"""Identity of a document, a version and a run, derived deterministically from the upload.

A document is a bucket and key; a version is one S3 version of it; a run is one durable
execution over that version (a reprocess is a new run of the same version). Every id here is
a pure function of its inputs, so duplicate events map to the same execution name and the
same report ids.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from docflow.errors import IntakeError

EXECUTION_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_KEY = 1024  # S3's longest key
_NULL_VERSION = "null"  # what S3 calls the version of an object in an unversioned bucket


def _digest(*parts: str, length: int) -> str:
    joined = "\x1f".join(parts).encode("utf-8")
    return hashlib.sha256(joined).hexdigest()[:length]


def version_tag(version: str) -> str:
    """A short, key-safe stand-in for an S3 version id (which may hold '.' etc.)."""
    return "v-" + _digest(version, length=16)


class PartOfJson(TypedDict, total=False):
    """A part's `partOf` in its execution input: its packet's run and pages."""

    documentId: str
    runId: str
    pages: list[int]  # [first, last]
    key: str  # the packet's S3 key (absent on parts started before it was carried)


class PartPayload(TypedDict, total=False):
    """What a part's status reports carry of its packet (the read model's parent fields)."""

    parentId: str
    parentRunId: str
    parentPages: list[int]
    parentKey: str


class RunInput(TypedDict, total=False):
    """The orchestrator's whole input: one run over one version of one object."""

    bucket: str
    key: str
    versionId: str
    sequencer: str
    generation: int
    etag: str
    eventTimeMs: int
    partOf: PartOfJson


@dataclass(frozen=True)
class PartOf:
    """What makes a document a packet's part: the packet's document and run, and the part's
    pages in the packet (1-based, inclusive)."""

    parent_id: str
    parent_run: str
    first: int
    last: int
    # The packet's S3 key, for people: a part is named after its packet's file and pages.
    # Empty on parts started before it was carried (their inputs stay as they were).
    packet_key: str = ""

    def to_json(self) -> PartOfJson:
        return {
            "documentId": self.parent_id,
            "runId": self.parent_run,
            "pages": [self.first, self.last],
            **(PartOfJson(key=self.packet_key) if self.packet_key else {}),
        }

    @classmethod
    def from_json(cls, raw: Any) -> PartOf:
        """Parse the execution input's `partOf`; a bad one is an intake error."""
        pages = raw.get("pages") if isinstance(raw, dict) else None
        ids = [raw.get(k) for k in ("documentId", "runId")] if isinstance(raw, dict) else []
        if (
            len(ids) != 2
            or not all(isinstance(i, str) and EXECUTION_NAME_RE.match(i) for i in ids)
            or not isinstance(pages, list)
            or len(pages) != 2
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in pages)
            or not 1 <= pages[0] <= pages[1]
        ):
            raise IntakeError("partOf needs documentId, runId and pages [first, last]", "bad-input")
        key = raw.get("key", "")
        if not isinstance(key, str) or len(key) > MAX_KEY:
            raise IntakeError("partOf's key must be an S3 key", "bad-input")
        return cls(str(ids[0]), str(ids[1]), pages[0], pages[1], key)

    def payload(self) -> PartPayload:
        """What the part's status reports carry of it (the read model's parentId and pages)."""
        return {
            "parentId": self.parent_id,
            "parentRunId": self.parent_run,
            "parentPages": [self.first, self.last],
            **(PartPayload(parentKey=self.packet_key) if self.packet_key else {}),
        }


def pages_phrase(first: int, last: int) -> str:
    return f"page {first}" if first == last else f"pages {first}\u2013{last}"


def display_name(key: str, packet_key: str = "", pages: Sequence[int] | None = None) -> str:
    """A document's name wherever a person reads it (mail subjects, review and inbox pages,
    the CLI's tables): a packet's part is its packet's file and pages (`post.pdf, pages 2-3`),
    never its own PDF (`00002-00003.pdf` under `packets/`); anything else its key's file name."""
    if pages:
        first, last = int(pages[0]), int(pages[-1])
        packet = packet_key.rsplit("/", 1)[-1] or "a packet"
        return f"{packet}, {pages_phrase(first, last)}"
    return key.rsplit("/", 1)[-1]


def name_of(record: Mapping[str, Any]) -> str:
    """`display_name` of a read-model item or state (its key, parentKey and parentPages)."""
    pages = record.get("parentPages")
    return display_name(
        str(record.get("key") or ""),
        str(record.get("parentKey") or ""),
        pages if isinstance(pages, list) and pages else None,
    )


@dataclass(frozen=True)
class DocumentRef:
    """One run over one version of one object. The orchestrator's whole input."""

    bucket: str
    key: str
    version_id: str = _NULL_VERSION
    # S3's sequencer orders events for one key; it decides which version's run is newer.
    sequencer: str = ""
    # Bumped by `docflow reprocess`: a later run of the same version supersedes an earlier one.
    generation: int = 0
    # The object's ETag: the same bytes uploaded again (a new version, same content) are the
    # same run, so a re-upload starts nothing. Empty when unknown: the version decides.
    content_tag: str = ""
    # The event's time (ms), only to order two events whose sequencers tie.
    event_time_ms: int = 0
    # A packet's part (docs/packets.md): its run is named from the packet's run and pages.
    part: PartOf | None = None

    @property
    def document_id(self) -> str:
        return "d-" + _digest(self.bucket, self.key, length=24)

    @property
    def display_name(self) -> str:
        part = self.part
        if part is None:
            return display_name(self.key)
        return display_name(self.key, part.packet_key, (part.first, part.last))

    @property
    def version(self) -> str:
        return self.version_id or _NULL_VERSION

    @property
    def version_tag(self) -> str:
        """A short, key-safe stand-in for the version id (S3 version ids may hold '.' etc.)."""
        return version_tag(self.version)

    @property
    def execution_name(self) -> str:
        if self.part is not None:
            return part_execution_name(self.part, self.generation)
        content = f"etag:{self.content_tag}" if self.content_tag else self.version
        name = "doc-" + _digest(self.bucket, self.key, content, str(self.generation), length=40)
        if self.generation:
            name += f"-r{self.generation}"
        return name

    @property
    def run_id(self) -> str:
        return self.execution_name

    @property
    def run_order(self) -> str:
        """Sortable: newer versions (by sequencer) and later generations compare greater."""
        sequencer = self.sequencer.upper().rjust(32, "0")
        return f"{sequencer}:{self.event_time_ms:013d}:{self.generation:06d}"

    def log_keys(self) -> dict[str, str]:
        return {"documentId": self.document_id, "version": self.version, "runId": self.run_id}

    def to_event(self) -> RunInput:
        return {
            "bucket": self.bucket,
            "key": self.key,
            "versionId": self.version,
            "sequencer": self.sequencer,
            "generation": self.generation,
            "etag": self.content_tag,
            "eventTimeMs": self.event_time_ms,
            # Only on a part, so an ordinary document's input is what it always was.
            **(RunInput(partOf=self.part.to_json()) if self.part else {}),
        }

    @classmethod
    def from_event(cls, event: Any) -> DocumentRef:
        """Parse the orchestrator's input; a bad one is an intake error, not a crash."""
        if not isinstance(event, dict):
            raise IntakeError("the execution input is not a JSON object", "bad-input")
        bucket, key = event.get("bucket"), event.get("key")
        if not isinstance(bucket, str) or not bucket or not isinstance(key, str) or not key:
            raise IntakeError("the execution input needs a bucket and a key", "bad-input")
        generation = event.get("generation", 0)
        event_time_ms = event.get("eventTimeMs", 0)
        for value in (generation, event_time_ms):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise IntakeError("generation and eventTimeMs must be whole numbers", "bad-input")
        return cls(
            bucket=bucket,
            key=key,
            version_id=str(event.get("versionId") or _NULL_VERSION),
            sequencer=str(event.get("sequencer") or ""),
            generation=generation,
            content_tag=str(event.get("etag") or ""),
            event_time_ms=event_time_ms,
            part=PartOf.from_json(event["partOf"]) if "partOf" in event else None,
        )


def part_execution_name(part: PartOf, generation: int = 0) -> str:
    """A part's run: from its packet's run (itself a function of the packet's bucket, key,
    content and generation) and its pages, so a packet that runs again starts nothing new.
    At most 57 characters of `[a-zA-Z0-9-_]`: `part-<32 hex>-<first>-<last>[-r<generation>]`."""
    name = f"part-{_digest(part.parent_run, str(part.first), str(part.last), length=32)}"
    name += f"-{part.first}-{part.last}"
    return name + (f"-r{generation}" if generation else "")


def event_id(run_id: str, status: str, detail: str = "") -> str:
    """A report's stable id: the same step reporting again after a crash reuses it."""
    return _digest(run_id, status, detail, length=32)
