"""A pile's size, known when it is submitted: the manifest under the pile's folder.

A pile is a folder under the pile prefix, `<pile prefix><pile>/`. Whoever submits it
(`docflow backfill`, or anyone with S3 access) first writes `<pile prefix><pile>/_manifest.json`,
`{"expected": N}`, then the pile's N documents under the same folder. Each document's `enrich`
step reads the manifest once and checkpoints what it found, so the pool knows how many records
to expect and the batcher starts the job when they have all registered (or the pool's maximum
wait has passed); a pile smaller than a job's minimum goes on-demand at once. A document
directly under the prefix, or in a folder with no manifest (or an unreadable one), is a pile of
unknown size: the pool waits for it as it waits for any record, up to the maximum wait.

The manifest is a marker, not a list: uploading it twice with the same count changes nothing
(the pool sets the expectation, never adds to it), and its own S3 event starts no document.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TypedDict

from docflow import aws
from docflow.observability import logger
from docflow.storage import PILE_MANIFEST, pile_manifest_key

MAX_EXPECTED = 1_000_000  # far above any job's maximum; a typo's zeroes get a clear error


class BadManifest(ValueError):
    """The manifest's body is not `{"expected": <whole number 1..MAX_EXPECTED>}`."""


class PileJson(TypedDict):
    """A pile of known size as the `enrich` step checkpoints it (`PileManifest.to_dict`)."""

    name: str
    expected: int


@dataclass(frozen=True)
class PileManifest:
    pile: str
    expected: int

    @classmethod
    def parse(cls, pile: str, body: bytes) -> PileManifest:
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise BadManifest("the manifest is not JSON") from exc
        expected = data.get("expected") if isinstance(data, dict) else None
        if isinstance(expected, bool) or not isinstance(expected, int):
            raise BadManifest('the manifest needs "expected": a whole number')
        if not 1 <= expected <= MAX_EXPECTED:
            raise BadManifest(f'"expected" must be 1..{MAX_EXPECTED}')
        return cls(pile, expected)

    def to_json(self) -> bytes:
        return json.dumps({"expected": self.expected}).encode()

    def to_dict(self) -> PileJson:
        """What the `enrich` step checkpoints (and the pool's registration takes)."""
        return {"name": self.pile, "expected": self.expected}

    @classmethod
    def from_dict(cls, value: PileJson) -> PileManifest:
        return cls(str(value["name"]), int(value["expected"]))


def pile_of(key: str, prefix: str) -> str | None:
    """The pile folder a key is in (`<prefix><pile>/<file>`), or None directly under it."""
    if not key.startswith(prefix):
        return None
    pile, slash, rest = key[len(prefix) :].partition("/")
    return pile if slash and pile and rest else None


def is_manifest(key: str, prefix: str) -> bool:
    pile = pile_of(key, prefix)
    return pile is not None and key == pile_manifest_key(prefix, pile)


def batcher_name(pile: str) -> str:
    """The batcher a complete pile starts: one name per pile, whatever its folder's characters
    (an execution name takes [a-zA-Z0-9_-] only), so a repeated start is the same execution."""
    return "pile-" + hashlib.sha256(pile.encode()).hexdigest()[:20]


def read_manifest(bucket: str, key: str, prefix: str) -> PileManifest | None:
    """The manifest of the pile `key` is in; None for no pile, no manifest or a bad one (a
    bad one is logged: the documents still go through, as a pile of unknown size)."""
    pile = pile_of(key, prefix)
    if pile is None or key.endswith("/" + PILE_MANIFEST):
        return None
    s3 = aws.client("s3")
    try:
        body = s3.get_object(Bucket=bucket, Key=pile_manifest_key(prefix, pile))["Body"].read()
    except s3.exceptions.NoSuchKey:
        return None
    try:
        return PileManifest.parse(pile, body)
    except BadManifest as exc:
        logger.warning("pile manifest ignored", extra={"pile": pile, "error": str(exc)})
        return None
