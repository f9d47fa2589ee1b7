"""What the review page shows about a document besides its pictures: which pages caused the
review, and the text of a page with every detected sensitive value masked.

Read from what the pipeline already stored under the document version's prefix: the batch
manifests (per page: engine, OCR confidence, detector counts; never a value) and the page
texts. The page index built from the manifests is cached beside them, at
`docs/<documentId>/<version>/review/pages.json` (derived from immutable inputs, so immutable
itself). Masking (`stage.masking`) happens here, on the way to the page: the full value of a
card, SSN, IBAN or address is never in the page, the read model, a log or a checkpoint.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypedDict

from botocore.exceptions import ClientError

from docflow import aws
from docflow.ids import DocumentRef
from docflow.review.stage.masking import Segment, mask
from docflow.rules.glued_digits import digits_apart
from docflow.storage import artifact_prefix, page_text_key, page_words_key

MAX_TEXT_CHARS = 20_000  # a page's text on the review page; the preview shows the rest


class PageFactsJson(TypedDict):
    """A page as the review's page index caches it (`review/pages.json`)."""

    page: int
    engine: str
    confidence: float
    sensitive: dict[str, int]


@dataclass(frozen=True)
class PageFacts:
    page: int
    engine: str
    confidence: float
    sensitive: dict[str, int]

    def low_confidence(self, threshold: float) -> bool:
        return self.engine != "textlayer" and self.confidence < threshold

    def to_dict(self) -> PageFactsJson:
        return {
            "page": self.page,
            "engine": self.engine,
            "confidence": self.confidence,
            "sensitive": self.sensitive,
        }


def masked_cut(text: str, limit: int = MAX_TEXT_CHARS) -> list[Segment]:
    """The page's text masked, then cut to `limit` characters: masking first sees every value
    whole (one cut through a card number would leave two halves no detector finds), and the
    cut never splits a masked value."""
    kept: list[Segment] = []
    left = limit
    for segment in mask(text):
        if left <= 0:
            break
        if segment.detector:
            if len(segment.text) > left:
                break
            kept.append(segment)
        else:
            kept.append(Segment(segment.text[:left]))
        left -= len(kept[-1].text)
    return kept


def review_order(
    pages: list[PageFacts], threshold: float, review_on: tuple[str, ...]
) -> tuple[list[int], int]:
    """Pages that caused the review first (a detector that routes to review fired, or OCR was
    unsure), then the rest in document order; and how many caused it."""
    flagged = [
        p.page
        for p in pages
        if any(p.sensitive.get(d) for d in review_on) or p.low_confidence(threshold)
    ]
    chosen = set(flagged)
    return flagged + [p.page for p in pages if p.page not in chosen], len(flagged)


class EvidenceStore:
    def __init__(self, artifact_bucket: str) -> None:
        self.bucket = artifact_bucket

    @property
    def _s3(self) -> Any:
        return aws.client("s3")

    def pages(self, doc: DocumentRef) -> list[PageFacts]:
        cache = f"{artifact_prefix(doc)}/review/pages.json"
        raw = self._get(cache)
        if raw is None:
            raw = json.dumps([p.to_dict() for p in self._from_manifests(doc)]).encode()
            self._s3.put_object(
                Bucket=self.bucket, Key=cache, Body=raw, ContentType="application/json"
            )
        return [
            PageFacts(int(p["page"]), str(p["engine"]), float(p["confidence"]), p["sensitive"])
            for p in json.loads(raw)
        ]

    def text(self, doc: DocumentRef, page: int) -> str:
        raw = self._get(page_text_key(doc, page))
        if raw is None:
            return ""
        # Whole: the view masks it first and cuts it after (`masked_cut`), with the digits the
        # text glued set apart as the reading's words have them, so a card glued to the
        # quantity printed after it is masked like any other.
        words = self._get(page_words_key(doc, page))
        rows = json.loads(words).get("words", []) if words else []
        return digits_apart(raw.decode("utf-8", "replace"), (str(row[0]) for row in rows))

    def plan_calls(self, key: str) -> list[dict[str, Any]]:
        """A packet's page calls (type, start score, reason codes), as the plan step stored
        them; [] when there are none."""
        raw = self._get(key) if key else None
        calls = json.loads(raw).get("pages", []) if raw else []
        return [c for c in calls if isinstance(c, dict) and "page" in c]

    def einvoice(self, key: str) -> dict[str, Any] | None:
        """An e-invoice's stored data (`einvoice.json`, docs/einvoice.md); None when it is not
        there or not a JSON object: the page then says it could not be read."""
        raw = self._get(key) if key else None
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def _from_manifests(self, doc: DocumentRef) -> list[PageFacts]:
        prefix = f"{artifact_prefix(doc)}/batches/"
        keys: list[str] = []
        for page in self._s3.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=prefix
        ):
            keys.extend(o["Key"] for o in page.get("Contents", []))
        with ThreadPoolExecutor(max_workers=8) as pool:
            manifests = list(pool.map(self._get, sorted(keys)))
        facts = [
            PageFacts(
                int(p["page"]),
                str(p.get("engine", "")),
                float(p.get("confidence", 0.0)),
                {str(k): int(v) for k, v in (p.get("sensitive") or {}).items()},
            )
            for raw in manifests
            if raw
            for p in json.loads(raw).get("pages", [])
        ]
        return sorted(facts, key=lambda f: f.page)

    def _get(self, key: str) -> bytes | None:
        try:
            return self._s3.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except ClientError as exc:
            if aws.error_code(exc) in ("NoSuchKey", "404"):
                return None
            raise
