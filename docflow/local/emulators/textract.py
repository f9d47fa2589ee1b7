"""Amazon Textract's DetectDocumentText on loopback, read by tesseract, with injected throttling.

moto's Textract answers every call with no text, which would leave a local run of the
production reader with nothing to classify. This server speaks Textract's JSON protocol on
the wire, so `TextractReader`, botocore's retries, docflow's throttle handling and the
cross-execution lease cap all run unchanged against it (`AWS_ENDPOINT_URL_TEXTRACT`). It
emulates the API, not Textract's accuracy: LINE blocks come from tesseract's lines, WORD blocks
from tesseract's words with their confidences and page-relative geometry.

It also measures what only the service side can see: calls in flight at once (the peak is what
the cap must bound), calls answered, and calls refused with a throttling error.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from docflow.local.emulators.base import LoopbackEmulator, Reply, Request
from docflow.readers.base import Word
from docflow.readers.tesseract import TesseractReader

if TYPE_CHECKING:
    from mypy_boto3_textract.type_defs import BlockTypeDef, DocumentMetadataTypeDef

# What Textract returns when a caller exceeds its transactions per second (HTTP 400).
THROTTLE_ERROR = "ProvisionedThroughputExceededException"

# An operation's answer from the page's OCR text, its mean confidence and its words with boxes.
Render = Callable[[str, float, Sequence[Word]], Mapping[str, object]]


class DetectAnswer(TypedDict):
    """DetectDocumentText's answer, as much of it as the readers use (with AWS's block type)."""

    DocumentMetadata: DocumentMetadataTypeDef
    Blocks: list[BlockTypeDef]
    DetectDocumentTextModelVersion: str


@dataclass
class TextractStats:
    calls: int = 0
    answered: int = 0
    throttled: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


class TextractEmulator(LoopbackEmulator):
    content_type = "application/x-amz-json-1.1"

    def __init__(self, port: int = 0, throttle_rate: float = 0.0, seed: int = 0) -> None:
        super().__init__(port=port, throttle_rate=throttle_rate, seed=seed)
        self.stats = TextractStats()
        self._ocr = TesseractReader()

    def operations(self) -> dict[str, Render]:
        """X-Amz-Target -> its answer; every operation reads one page image with tesseract."""
        return {"Textract.DetectDocumentText": detect_document_text_answer}

    def for_request(self, target: str, render: Render, request: Mapping[str, Any]) -> Render | str:
        """The operation's answer bound to what the request asks (AnalyzeDocument's features
        and queries), or why the service would refuse it; most operations need neither."""
        return render

    def handle(self, request: Request) -> Reply:
        status, answer = self.answer(request.header("X-Amz-Target"), request.body)
        return Reply(status, answer)

    def answer(self, target: str, body: bytes) -> tuple[int, Mapping[str, object]]:
        render = self.operations().get(target)
        if render is None:
            return 400, {"__type": "UnsupportedOperation", "message": f"{target} is not emulated"}
        with self._lock:
            self.stats.calls += 1
            self.stats.in_flight += 1
            self.stats.peak_in_flight = max(self.stats.peak_in_flight, self.stats.in_flight)
            throttle = self.draw_throttle()
        try:
            if throttle:
                with self._lock:
                    self.stats.throttled += 1
                return 400, {"__type": THROTTLE_ERROR, "message": "Rate exceeded"}
            try:
                request = json.loads(body)
                png = base64.b64decode(request["Document"]["Bytes"])
            except (ValueError, KeyError, TypeError):
                return 400, {"__type": "InvalidParameterException", "message": "no document"}
            bound = self.for_request(target, render, request)
            if isinstance(bound, str):
                return 400, {"__type": "InvalidParameterException", "message": bound}
            text, confidence, words = self._ocr.ocr_words(png)
            with self._lock:
                self.stats.answered += 1
            return 200, bound(text, confidence, words)
        finally:
            with self._lock:
                self.stats.in_flight -= 1


def detect_document_text_answer(
    text: str, confidence: float, words: Sequence[Word] = ()
) -> DetectAnswer:
    """LINE blocks from the text; WORD blocks from tesseract's words with their geometry
    (Textract's BoundingBox is page-relative from the top-left, as the words' boxes are), or
    from the lines' words without geometry when there are none."""
    blocks: list[BlockTypeDef] = [{"BlockType": "PAGE", "Id": "page-1"}]
    if words:
        blocks += [_word_block(i, w, confidence) for i, w in enumerate(words)]
    for n, line in enumerate(filter(None, text.split("\n"))):
        blocks.append(
            {"BlockType": "LINE", "Id": f"line-{n}", "Text": line, "Confidence": confidence}
        )
        if not words:
            blocks += [
                {"BlockType": "WORD", "Id": f"word-{n}-{i}", "Text": w, "Confidence": confidence}
                for i, w in enumerate(line.split())
            ]
    return {
        "DocumentMetadata": {"Pages": 1},
        "Blocks": blocks,
        "DetectDocumentTextModelVersion": "1.0",
    }


def _word_block(index: int, word: Word, fallback: float) -> BlockTypeDef:
    x0, y0, x1, y1 = word.box
    return {
        "BlockType": "WORD",
        "Id": f"word-{index}",
        "Text": word.text,
        "Confidence": word.confidence if word.confidence is not None else fallback,
        "Geometry": {"BoundingBox": {"Left": x0, "Top": y0, "Width": x1 - x0, "Height": y1 - y0}},
    }
