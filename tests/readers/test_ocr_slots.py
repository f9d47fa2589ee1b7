"""OCR never floods the cores: however many pages are read side by side in one process, at
most OCR_SLOTS_PER_CORE tesseracts per usable core run at a time."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from docflow.pdf import open_pdf
from docflow.readers.tesseract import OCR_SLOTS_PER_CORE, TesseractReader
from docflow.readers.tesseract_engines import CliEngine
from docflow.settings import usable_cores
from tests.kit import pdfgen


def _tesseract_children() -> set[str]:
    """Live tesseract processes started by this process (any of its threads)."""
    found = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in children:
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "tesseract":
                    found.add(pid)
            except OSError:
                continue
    return found


def test_pages_read_side_by_side_run_a_bounded_number_of_tesseracts() -> None:
    slots = OCR_SLOTS_PER_CORE * usable_cores()
    pages = 3 * slots + 2
    data = pdfgen.scanned_pdf("INVOICE\nInvoice number: INV-7731\nTotal due: 412.50 EUR")
    peak, done = 0, threading.Event()

    def sample() -> None:
        # One listing is not one instant: a process seen early may end before another seen
        # later starts. Processes seen in two listings in a row were all alive together
        # (each lived from its sighting in the first to its sighting in the second, and the
        # first listing ended before the second began), so only those count.
        nonlocal peak
        before: set[str] = set()
        while not done.is_set():
            now = _tesseract_children()
            peak = max(peak, len(before & now))
            before = now

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    def read(_: int) -> str:
        with open_pdf(data) as pdf:
            # The binary: its processes can be counted (tesserocr's runs are threads).
            return TesseractReader(dpi=150, engine=CliEngine()).read(pdf, 1).text

    try:
        with ThreadPoolExecutor(pages) as pool:
            texts = list(pool.map(read, range(pages)))
    finally:
        done.set()
        sampler.join()
    assert all("INV-7731" in text for text in texts)
    assert 1 <= peak <= slots
