"""Intake reasons straight from docflow.pdf: each refusal names its own cause, in any order."""

from __future__ import annotations

import itertools

import pytest

from docflow.errors import IntakeError
from docflow.pdf import IntakeLimits, inspect_pdf
from tests.kit import pdfgen

LIMITS = IntakeLimits(max_pages=100, max_bytes=10**8, max_page_points=14400)
CASES = {
    "encrypted": pdfgen.encrypted_pdf,
    "zero-pages": pdfgen.zero_page_pdf,
    "corrupt": pdfgen.truncated_pdf,
    "unrenderable-page": pdfgen.unloadable_page_pdf,
    "page-dimensions": pdfgen.huge_page_pdf,
}


def reason_of(data: bytes) -> str:
    with pytest.raises(IntakeError) as refused:
        inspect_pdf(data, LIMITS)
    return refused.value.reason


@pytest.mark.parametrize("order", list(itertools.permutations(CASES, 2)), ids="-then-".join)
def test_a_refusal_does_not_leak_into_the_next_one(order: tuple[str, str]) -> None:
    # PDFium's last-error code is process-wide; a zero-page file read after an encrypted one
    # once came out "encrypted".
    assert [reason_of(CASES[name]()) for name in order] == list(order)


def test_a_sound_document_after_refusals_passes() -> None:
    for make in CASES.values():
        reason_of(make())
    assert inspect_pdf(pdfgen.text_pdf("one", "two"), LIMITS).pages == 2
