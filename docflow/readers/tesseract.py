"""Scanned pages: render with PDFium, OCR with the tesseract binary.

The binary is called directly rather than through pytesseract: one call with TSV output gives
the words, their boxes and their confidences, with the image on stdin and no temporary files.
It reads with the languages the rules file names (`[ocr] languages`, `eng+deu+...`): with only
English a German scan loses its umlauts and a French one its accents. Page segmentation mode 3
(tesseract's automatic layout analysis) is the default: mode 4 keeps some right-aligned totals
that mode 3 drops, but read the real and generated scans worse overall (measured with
`bench/extraction.py`). Binarization is Sauvola's local threshold (`thresholding_method=2`):
tesseract's default global Otsu threshold loses the words in a grey-shaded box (totals, the
number in a header panel), which scans of real invoices are full of (real scans 0.605 -> 0.628).
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import threading
from collections import defaultdict

from docflow.errors import PageReadError
from docflow.pdf import OpenPdf
from docflow.readers.base import PageText, Word, clamp_box
from docflow.settings import usable_cores

# Several tesseract processes side by side are many times slower when each also starts
# OpenMP threads; one thread each lets page concurrency do the parallel work.
_ENV = {**os.environ, "OMP_THREAD_LIMIT": "1"}
# At most two tesseracts per core in this process, whatever the page concurrency of each
# execution and however many executions share the process (the local stack's function host
# runs them all: eight documents of three scans each started 24 at once, 120 MB of language
# models each, time-sharing two cores). Not one per core: a document whose scans are not a
# multiple of the cores (three on two) then waits a whole extra page for its last one, and the
# in-process orchestrator fell from 1.75x to 1.40x the serial loop. A page renders before it
# takes a slot, so rendering the next pages overlaps the OCR of these.
OCR_SLOTS_PER_CORE = 2
OCR_SLOTS = threading.BoundedSemaphore(OCR_SLOTS_PER_CORE * usable_cores())


class TesseractReader:
    name = "tesseract"

    def __init__(
        self, dpi: int = 200, language: str = "eng", timeout_s: float = 120.0, psm: int = 3
    ) -> None:
        self.dpi = dpi
        self.language = language
        self.timeout_s = timeout_s
        self.psm = psm

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        png = pdf.render_png(page, self.dpi)
        text, confidence, words = self.ocr_words(png)
        return PageText(page, text, self.name, confidence, words)

    def ocr_png(self, png: bytes) -> tuple[str, float]:
        text, confidence, _ = self.ocr_words(png)
        return text, confidence

    def ocr_words(self, png: bytes) -> tuple[str, float, tuple[Word, ...]]:
        try:
            command = [
                "tesseract",
                "stdin",
                "stdout",
                "-l",
                self.language,
                "--psm",
                f"{self.psm}",
                "-c",
                "thresholding_method=2",
            ]
            with OCR_SLOTS:
                done = subprocess.run(
                    [*command, "tsv"],
                    input=png,
                    capture_output=True,
                    timeout=self.timeout_s,
                    env=_ENV,
                    check=False,
                )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PageReadError(f"tesseract did not run: {exc}") from exc
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip()[:200]
            raise PageReadError(f"tesseract exited {done.returncode}: {detail}")
        return parse_tsv_words(done.stdout.decode("utf-8", "replace"))


def parse_tsv_words(tsv: str) -> tuple[str, float, tuple[Word, ...]]:
    """The text (words grouped into lines in reading order), the mean word confidence, and
    the words with page-relative boxes (the level-1 row gives the image's size)."""
    lines: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    confidences: list[float] = []
    words: list[Word] = []
    width = height = 0.0
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        if row.get("level") == "1":
            width, height = float(row.get("width") or 0), float(row.get("height") or 0)
        word = (row.get("text") or "").strip()
        if row.get("level") != "5" or not word:
            continue
        conf = float(row.get("conf") or -1)
        if conf >= 0:
            confidences.append(conf)
        lines[(row["block_num"], row["par_num"], row["line_num"])].append(word)
        if width > 0 and height > 0:
            left, top = float(row["left"]), float(row["top"])
            right, bottom = left + float(row["width"]), top + float(row["height"])
            box = clamp_box(left / width, top / height, right / width, bottom / height)
            words.append(Word(word, box, conf if conf >= 0 else None))
    text = "\n".join(" ".join(ws) for ws in lines.values())
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    return text, round(mean, 2), tuple(words)
