"""Scanned pages: render with PDFium, OCR with the tesseract binary.

The binary is called directly rather than through pytesseract: one call with TSV output gives
both the words and their confidences, with the image on stdin and no temporary files.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
from collections import defaultdict

from docflow.errors import PageReadError
from docflow.pdf import OpenPdf
from docflow.readers.base import PageText

# Several tesseract processes side by side are many times slower when each also starts
# OpenMP threads; one thread each lets page concurrency do the parallel work.
_ENV = {**os.environ, "OMP_THREAD_LIMIT": "1"}


class TesseractReader:
    name = "tesseract"

    def __init__(self, dpi: int = 200, language: str = "eng", timeout_s: float = 120.0) -> None:
        self.dpi = dpi
        self.language = language
        self.timeout_s = timeout_s

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        png = pdf.render_png(page, self.dpi)
        text, confidence = self.ocr_png(png)
        return PageText(page, text, self.name, confidence)

    def ocr_png(self, png: bytes) -> tuple[str, float]:
        try:
            done = subprocess.run(
                ["tesseract", "stdin", "stdout", "-l", self.language, "--psm", "3", "tsv"],
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
        return parse_tsv(done.stdout.decode("utf-8", "replace"))


def parse_tsv(tsv: str) -> tuple[str, float]:
    """Words grouped into lines in reading order, and their mean confidence."""
    lines: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    confidences: list[float] = []
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        word = (row.get("text") or "").strip()
        if row.get("level") != "5" or not word:
            continue
        conf = float(row.get("conf") or -1)
        if conf >= 0:
            confidences.append(conf)
        lines[(row["block_num"], row["par_num"], row["line_num"])].append(word)
    text = "\n".join(" ".join(words) for words in lines.values())
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    return text, round(mean, 2)
