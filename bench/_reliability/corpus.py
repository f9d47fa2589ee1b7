"""Documents the scenarios upload: each one distinct, so each is its own S3 content and run."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode

from tests.kit.pdfgen import make_pdf


def invoice(n: int, pages: int = 1, scanned: bool = False) -> bytes:
    first = (
        f"NORTHWIND TRADING LTD\nINVOICE INV-{10000 + n}\nBill to: Customer {n}\n"
        f"Amount due: {n}.00 USD\nPayment terms: net 30"
    )
    rest = [
        f"Invoice INV-{10000 + n}, continued: line items page {p + 2}" for p in range(pages - 1)
    ]
    content: list[Any] = [first, *rest]
    if scanned:  # every other page is a scan with no text layer: OCR reads it
        content = [("scan", text) if i % 2 else text for i, text in enumerate(content)]
    return make_pdf(content)


def contract(n: int) -> bytes:
    """Classified as a contract: one review stage (legal)."""
    return make_pdf(
        [
            f"SERVICES AGREEMENT No. {n}\nThis agreement is made between the parties named below.\n"
            "The parties hereby agree to the terms and conditions. Governing law: Delaware."
        ]
    )


def post(url: str, fields: dict[str, str], timeout: float = 30) -> int:
    request = urllib.request.Request(url, data=urlencode(fields).encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
