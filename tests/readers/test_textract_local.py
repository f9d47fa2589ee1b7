"""The production Textract reader, its throttle retries and its cross-execution cap, against the
local Textract emulator refusing a share of calls the way Textract does when over its rate."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from docflow.local.emulators.textract import TextractEmulator
from docflow.pdf import open_pdf
from docflow.readers.factory import build_reader
from docflow.settings import load_settings
from tests.kit.pdfgen import make_pdf
from tests.support.aws import Stack


@pytest.fixture
def textract() -> Iterator[TextractEmulator]:
    emulator = TextractEmulator(throttle_rate=0.4, seed=1).start()
    saved = os.environ.get("AWS_ENDPOINT_URL_TEXTRACT")
    os.environ["AWS_ENDPOINT_URL_TEXTRACT"] = emulator.url
    from docflow import aws

    aws.reset_clients()
    yield emulator
    emulator.stop()
    if saved is None:
        os.environ.pop("AWS_ENDPOINT_URL_TEXTRACT", None)
    else:
        os.environ["AWS_ENDPOINT_URL_TEXTRACT"] = saved
    aws.reset_clients()


def test_throttled_textract_reads_every_page_within_the_cap(
    stack: Stack, textract: TextractEmulator
) -> None:
    settings = replace(
        load_settings(),
        ocr_engine="textract",
        reader_concurrency_cap=2,
        throttle_base_delay_s=0.05,
        throttle_max_delay_s=0.5,
    )
    pages = [("scan", f"INVOICE INV-{4000 + n}\nAmount due: {n}.00 USD") for n in range(6)]
    data = make_pdf(pages)
    # Three "instances", each with its own reader, sharing only the lease table.
    readers = [build_reader(settings) for _ in range(3)]

    def read(n: int) -> str:
        with open_pdf(data) as pdf:
            return readers[n % 3].read(pdf, n % 6 + 1).text

    with ThreadPoolExecutor(max_workers=9) as pool:
        texts = list(pool.map(read, range(18)))

    assert all(f"INV-{4000 + n % 6}" in text for n, text in enumerate(texts))
    stats = textract.stats
    assert stats.throttled > 0 and stats.answered == 18
    assert stats.peak_in_flight <= 2
    assert stats.peak_in_flight == 2  # the cap was exercised, not a serial run


def test_the_emulator_answers_only_what_it_emulates(textract: TextractEmulator) -> None:
    status, answer = textract.answer("Textract.AnalyzeDocument", b"{}")
    assert status == 400 and answer["__type"] == "UnsupportedOperation"
