"""A scanned page is read with its own languages: an English first pass, the identifier on its
words, the page's language for the second pass, and the whole list when the page is too short
to tell. Real PDFs, real renders, real tesseract."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from docflow.pdf import open_pdf
from docflow.readers.base import PageText
from docflow.readers.tesseract import OCR_SLOTS_PER_CORE, TesseractReader
from docflow.readers.tesseract_engines import ApiEngine, CliEngine, TsvEngine, tessdata_dir
from docflow.rules.model import load_rules
from docflow.settings import usable_cores
from tests.kit.pdfgen import make_pdf

SEVEN = load_rules().ocr_languages

GERMAN = (
    "RECHNUNG Nr. 2024-118\n"
    "Sehr geehrte Damen und Herren, wir berechnen Ihnen die Lieferung vom Montag.\n"
    "Bitte überweisen Sie den Betrag innerhalb von vierzehn Tagen auf unser Konto.\n"
    "Die Ware bleibt bis zur vollständigen Bezahlung unser Eigentum.\n"
    "Mit freundlichen Grüßen aus der Geschäftsstelle in Köln."
)
ENGLISH = (
    "INVOICE 2024-118\n"
    "Dear customer, we charge you for the delivery of the goods you ordered.\n"
    "Please transfer the amount below within fourteen days to our account.\n"
    "The goods remain our property until they are paid for in full.\n"
    "Kind regards from the accounts department."
)


def _engines() -> list[TsvEngine]:
    engines: list[TsvEngine] = [CliEngine()]
    tessdata = tessdata_dir()
    if tessdata:
        engines.append(ApiEngine(tessdata))
    return engines


ENGINES = pytest.mark.parametrize("engine", _engines(), ids=lambda e: e.name)


def _read(text: str, engine: TsvEngine) -> PageText:
    with open_pdf(make_pdf([("scan", text)])) as pdf:
        return TesseractReader(dpi=200, language=SEVEN, identify=True, engine=engine).read(pdf, 1)


@ENGINES
def test_a_german_scan_is_read_with_german_alone(engine: TsvEngine) -> None:
    page = _read(GERMAN, engine)
    assert page.ocr is not None
    assert (page.ocr.identified, page.ocr.languages, page.ocr.reason) == (
        "deu",
        "deu",
        "identified",
    )
    # German's own model keeps what English alone drops.
    assert "vollständigen" in page.text
    assert page.words and all(0 <= v <= 1 for w in page.words for v in w.box)


@ENGINES
def test_an_english_scan_is_read_with_english_alone(engine: TsvEngine) -> None:
    page = _read(ENGLISH, engine)
    assert page.ocr is not None
    assert (page.ocr.identified, page.ocr.languages) == ("eng", "eng")
    assert "delivery of the goods" in page.text


@ENGINES
def test_a_page_too_short_to_tell_is_read_with_every_language(engine: TsvEngine) -> None:
    page = _read("Summe 12,00 EUR", engine)
    assert page.ocr is not None
    assert (page.ocr.languages, page.ocr.reason) == (SEVEN, "short")
    assert "Summe" in page.text


def test_the_choice_stays_within_the_rules_files_languages() -> None:
    # A German page when German is not in the list: never read with a language the rules
    # file does not name.
    with open_pdf(make_pdf([("scan", GERMAN)])) as pdf:
        page = TesseractReader(dpi=200, language="eng+fra", identify=True, engine=CliEngine()).read(
            pdf, 1
        )
    assert page.ocr is not None
    assert set(page.ocr.languages.split("+")) <= {"eng", "fra"}


def test_the_api_engine_keeps_its_models_loaded_across_pages() -> None:
    tessdata = tessdata_dir()
    if not tessdata:
        pytest.skip("no tessdata directory")
    engine = ApiEngine(tessdata)
    with open_pdf(make_pdf([("scan", ENGLISH), ("scan", ENGLISH)])) as pdf:
        reader = TesseractReader(dpi=150, language="eng", engine=engine)
        first = reader.read(pdf, 1)
        held = [api for _, api in engine._idle.values()]
        second = reader.read(pdf, 2)
    assert first.text == second.text
    # The same loaded API read the second page: nothing was made or loaded again.
    assert [api for _, api in engine._idle.values()] == held and len(held) == 1


class _Counting:
    """An engine that records how many of its runs were under way at once."""

    def __init__(self, inner: TsvEngine) -> None:
        self.inner, self.name = inner, inner.name
        self.active = self.peak = 0
        self._lock = threading.Lock()

    def tsv(self, png: bytes, languages: str, psm: int, timeout_s: float) -> str:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            return self.inner.tsv(png, languages, psm, timeout_s)
        finally:
            with self._lock:
                self.active -= 1


def test_in_process_runs_keep_to_the_ocr_slots() -> None:
    tessdata = tessdata_dir()
    if not tessdata:
        pytest.skip("no tessdata directory")
    slots = OCR_SLOTS_PER_CORE * usable_cores()
    engine = _Counting(ApiEngine(tessdata))
    data = make_pdf([("scan", "INVOICE\nInvoice number: INV-7731")])

    def read(_: int) -> str:
        with open_pdf(data) as pdf:
            return TesseractReader(dpi=150, engine=engine).read(pdf, 1).text

    with ThreadPoolExecutor(2 * slots + 1) as pool:
        texts = list(pool.map(read, range(2 * slots + 1)))
    assert all("INV-7731" in t for t in texts)
    assert 1 <= engine.peak <= slots


def test_the_rules_files_identify_knob_reaches_the_reader(tmp_path: Path) -> None:
    from docflow.readers.factory import build_reader
    from docflow.settings import load_settings

    source = (Path(__file__).parents[2] / "docflow/rules/rules.toml").read_text("utf-8")
    assert load_rules().ocr_identify is False
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(source.replace("identify = false", "identify = true"), "utf-8")
    rules = load_rules(rules_file)
    assert rules.ocr_identify is True
    reader = build_reader(load_settings(), rules.ocr_languages, rules.ocr_identify)
    with open_pdf(make_pdf([("scan", GERMAN)])) as pdf:
        page = reader.read(pdf, 1)
    assert page.ocr is not None and page.ocr.languages == "deu"
