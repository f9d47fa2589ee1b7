"""Scanned pages: render with PDFium, OCR with tesseract in the page's own languages.

One tesseract run gives the words, their boxes and their confidences as TSV, with the image
in memory and no temporary files (readers/tesseract_engines: tesserocr in this process, or
the binary). The rules file names the languages a page may be in (`[ocr] languages`,
`eng+deu+...`): with only English a German scan loses its umlauts and a French one its
accents, but reading with all seven costs far more than with one. So a page is read first
with the list's first language, a language identifier looks at those words
(readers/languages), and the page is read again with its own one or two languages only when
they are not that first one; a page the identifier is unsure of (or too short to tell) is read
with the whole list, as before, so a doubtful guess costs time and never accuracy. The
choice is kept on the reading (`PageText.ocr`).

Page segmentation mode 3 (tesseract's automatic layout analysis) is the default: mode 4 keeps
some right-aligned totals that mode 3 drops, but read the real and generated scans worse
overall (measured with `bench/extraction.py`). Binarization is Sauvola's local threshold
(`thresholding_method=2`): tesseract's default global Otsu threshold loses the words in a
grey-shaded box (totals, the number in a header panel), which scans of real invoices are full
of (real scans 0.605 -> 0.628).
"""

from __future__ import annotations

import csv
import io
import threading
from collections import defaultdict

from docflow.pdf import OpenPdf
from docflow.readers.base import PageText, Word, clamp_box
from docflow.readers.languages import LanguageChoice, choose_languages
from docflow.readers.tesseract_engines import TsvEngine, default_engine
from docflow.settings import usable_cores

# At most two tesseracts per core in this process, whatever the page concurrency of each
# execution and however many executions share the process (the local stack's function host
# runs them all: eight documents of three scans each started 24 at once, 120 MB of language
# models each, time-sharing two cores). Not one per core: a document whose scans are not a
# multiple of the cores (three on two) then waits a whole extra page for its last one, and the
# in-process orchestrator fell from 1.75x to 1.40x the serial loop. A page renders before it
# takes a slot, so rendering the next pages overlaps the OCR of these.
OCR_SLOTS_PER_CORE = 2
OCR_SLOTS = threading.BoundedSemaphore(OCR_SLOTS_PER_CORE * usable_cores())

_engine: TsvEngine | None = None
_engine_lock = threading.Lock()


def shared_engine() -> TsvEngine:
    """One engine per process, so every reader shares its loaded models."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = default_engine()
        return _engine


class TesseractReader:
    name = "tesseract"

    def __init__(
        self,
        dpi: int = 200,
        language: str = "eng",
        timeout_s: float = 120.0,
        psm: int = 3,
        identify: bool = False,
        engine: TsvEngine | None = None,
    ) -> None:
        self.dpi = dpi
        self.language = language
        self.timeout_s = timeout_s
        self.psm = psm
        # False: every page with the whole list (the rules file's `[ocr] identify`).
        self.identify = identify
        self.engine = engine or shared_engine()

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        png = pdf.render_png(page, self.dpi)
        text, confidence, words, choice = self.ocr_page(png)
        return PageText(page, text, self.name, confidence, words, ocr=choice)

    def ocr_png(self, png: bytes) -> tuple[str, float]:
        text, confidence, _, _ = self.ocr_page(png)
        return text, confidence

    def ocr_words(self, png: bytes) -> tuple[str, float, tuple[Word, ...]]:
        text, confidence, words, _ = self.ocr_page(png)
        return text, confidence, words

    def ocr_page(self, png: bytes) -> tuple[str, float, tuple[Word, ...], LanguageChoice]:
        """The page's text, mean confidence and words, and the languages they were read with."""
        names = self.language.split("+")
        if not self.identify or len(names) == 1:
            reason = "single" if len(names) == 1 else "off"
            whole = LanguageChoice(self.language, None, 1.0, reason)
            return (*self._run(png, self.language), whole)
        first = self._run(png, names[0])
        choice = choose_languages((w.text for w in first[2]), self.language)
        if choice.languages == names[0]:
            return (*first, choice)
        return (*self._run(png, choice.languages), choice)

    def _run(self, png: bytes, languages: str) -> tuple[str, float, tuple[Word, ...]]:
        with OCR_SLOTS:
            tsv = self.engine.tsv(png, languages, self.psm, self.timeout_s)
        return parse_tsv_words(tsv)


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
