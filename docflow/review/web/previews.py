"""Page previews for the review page: rendered on first request, then served from S3.

Cached at `docs/<documentId>/<version>/previews/<page>-w<width>.png` in the artifact bucket:
the key names immutable bytes (one version of one page at one width), so a render that runs
twice writes the same object twice, and a cached preview never needs invalidating. A preview
is a picture of the document with every detected sensitive value covered in black
(`redact`), where the reading's own words say it is, and the callback API serves it only to a
link that may still decide.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError
from PIL import Image

from docflow import aws
from docflow.ids import DocumentRef
from docflow.pdf import open_pdf
from docflow.readers.base import Word
from docflow.review.web.redact import Box, cover, text_layer_boxes, word_boxes
from docflow.storage import (
    PREVIEW_EXPIRY,
    DocumentStore,
    artifact_prefix,
    expiry_tagging,
    page_words_key,
)

PREVIEW_WIDTH = 1000
THUMB_WIDTH = 300  # the split stage's thumbnails: a packet's every page on one screen
MAX_PREVIEW_BYTES = 400_000


def preview_key(doc: DocumentRef, page: int, width: int = PREVIEW_WIDTH) -> str:
    # "-r": detected values covered where the reading found them; "-ri": and where OCR found
    # them in a typed page's pictures; "-ric": and cards in any printed form (dots, slashes,
    # any space, a quantity beside them: rules/card_numbers.py), so a preview cached before
    # is never served. A change to what is covered gets a new suffix.
    return f"{artifact_prefix(doc)}/previews/{page:05d}-w{width}-ric.png"


def encode_bounded(image: Image.Image, max_bytes: int = MAX_PREVIEW_BYTES) -> bytes:
    """PNG under `max_bytes`: full colour if it fits, else fewer colours, then fewer pixels.

    A scanned page is mostly paper noise, which PNG compresses badly; a 16-level palette keeps
    text sharp and costs a fraction of the bytes.
    """
    candidate = image.convert("RGB")
    if _is_gray(candidate):
        candidate = candidate.convert("L")
    while True:
        for colours in (None, 64, 16):
            picture = candidate if colours is None else candidate.quantize(colours)
            out = io.BytesIO()
            picture.save(out, format="PNG", compress_level=6)  # optimize=True: 10x the time, 3% off
            if out.tell() <= max_bytes:
                return out.getvalue()
        width, height = candidate.size
        candidate = candidate.resize((max(1, width * 3 // 4), max(1, height * 3 // 4)))


def _is_gray(image: Image.Image) -> bool:
    # The pixels as RGB bytes (getdata() is deprecated in Pillow 13, and its stubs do not
    # iterate).
    rgb = image.resize((64, 64)).tobytes()
    return all(
        abs(rgb[i] - rgb[i + 1]) < 12 and abs(rgb[i + 1] - rgb[i + 2]) < 12
        for i in range(0, len(rgb), 3)
    )


class PreviewStore:
    def __init__(self, store: DocumentStore, max_source_bytes: int) -> None:
        self.store = store
        self.max_source_bytes = max_source_bytes

    @property
    def _s3(self) -> Any:
        return aws.client("s3")

    def get(
        self,
        doc: DocumentRef,
        page: int,
        found_something: Callable[[], bool],
        width: int = PREVIEW_WIDTH,
    ) -> tuple[bytes, bool]:
        """The page's preview, detected values covered, and whether it came from the cache.

        `found_something()`, asked only when rendering: did the page's reading count a
        detected value? If it did and no box for it can be found, the whole page is covered:
        a preview never shows what the text masks.
        """
        key = preview_key(doc, page, width)
        cached = self._get(key)
        if cached is not None:
            return cached, True
        words, pictures = self._words(doc, page)
        data = self.store.source_bytes(doc, self.max_source_bytes)
        with open_pdf(data) as pdf:
            image, scale = pdf.render_preview(page, width)
            boxes: list[Box] | None = (
                word_boxes(words, *image.size) if words else text_layer_boxes(pdf, page, scale)
            )
        if pictures:  # what OCR read in the page's pictures (readers/pictures), apart
            boxes = [*(boxes or []), *word_boxes(pictures, *image.size)]
        if not boxes and found_something():
            boxes = [Box(0, 0, *image.size)]
        png = encode_bounded(cover(image, boxes or []))
        self._s3.put_object(
            Bucket=self.store.artifact_bucket,
            Key=key,
            Body=png,
            ContentType="image/png",
            CacheControl="private, max-age=31536000, immutable",
            Tagging=expiry_tagging(PREVIEW_EXPIRY),  # the bucket's lifecycle expires it
        )
        return png, False

    def _words(self, doc: DocumentRef, page: int) -> tuple[list[Word], list[Word]]:
        """The words with boxes of the reading that gave the page its text, and those OCR
        read in its pictures ([] if none)."""
        raw = self._get(page_words_key(doc, page))
        stored = json.loads(raw) if raw else {}
        words = [Word.from_row(r) for r in stored.get("words", [])]
        return words, [Word.from_row(r) for r in stored.get("imageWords", [])]

    def _get(self, key: str) -> bytes | None:
        try:
            return self._s3.get_object(Bucket=self.store.artifact_bucket, Key=key)["Body"].read()
        except ClientError as exc:
            if aws.error_code(exc) not in ("NoSuchKey", "404"):
                raise
            return None
