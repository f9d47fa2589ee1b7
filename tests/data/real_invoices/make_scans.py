"""Make the image-only "scans" of the real-invoice set from some of its text-layer PDFs.

Each page is rendered at 170 dpi, turned to grey, given the faults of a cheap office scanner
(a slight skew, a little blur, paper speckle, uneven exposure, JPEG artefacts) and wrapped back
into a PDF holding only the images: no text layer, so an engine must OCR it.

Everything is seeded per file, and the PDF's dates are fixed, so running it again writes the
same bytes; the outputs are committed so the set stays fixed even if Pillow changes.

    python tests/data/real_invoices/make_scans.py
"""

from __future__ import annotations

import hashlib
import io
import random
from datetime import UTC, datetime
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageFilter

HERE = Path(__file__).resolve().parent
DPI = 170
MAX_PAGES = 2  # every field of most of these documents is on their first two pages
# Files whose fields run further: a rendered FatturaPA puts its totals on page 3.
PAGES = {("fatturaelettronica-net", "IT01234567890_FPR02.pdf"): 3}

# (source folder, original file): the scan is written beside it as <stem>_scan.pdf
SOURCES: list[tuple[str, str]] = [
    ("mustangproject", "EN16931_Einfach.pdf"),
    ("mustangproject", "zugferd_invoice.pdf"),
    ("mustangproject", "103767-Invoice-2026-03-24-1.pdf"),
    ("mustangproject", "MustangGnuaccountingBeispielRE-20201121_508blanko.pdf"),
    ("factur-x", "invoice_EN16931.pdf"),
    ("simple-procesador-facturas", "factura1360.pdf"),
    ("brazilfiscalreport", "danfe_sn.pdf"),
    ("invoice2data", "camelot-bol100649863.pdf"),
    ("invoice2data", "camelot-example.pdf"),
    ("fatturaelettronica-net", "IT01234567890_FPR02.pdf"),
    ("fatturaelettronicaphp", "30122583.pdf"),
]

FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC).timetuple()


def _seed(name: str) -> int:
    # A stable seed per file: Python's hash() of a str changes between runs.
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def degrade(page: Image.Image, rng: random.Random) -> Image.Image:
    """One scanned-looking greyscale image of a rendered page."""
    img = page.convert("L")
    # Skew of up to 1.2 degrees, filled with paper white as a flatbed scan would be.
    img = img.rotate(
        rng.uniform(-1.2, 1.2), resample=Image.Resampling.BICUBIC, expand=False, fillcolor=250
    )
    img = img.filter(ImageFilter.GaussianBlur(radius=rng.uniform(0.5, 0.9)))
    # Exposure: slightly grey paper and slightly faded ink.
    lo, hi = rng.randint(10, 35), rng.randint(225, 245)
    img = img.point(lambda v: lo + v * (hi - lo) // 255)
    # Speckle: dark dust and white drop-outs, about 0.15% of the pixels each.
    pixels = img.load()
    width, height = img.size
    for _ in range(width * height // 650):
        x, y = rng.randrange(width), rng.randrange(height)
        pixels[x, y] = rng.choice((rng.randint(0, 70), rng.randint(235, 255)))
    # JPEG artefacts from a low-quality pass before the final encode.
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=rng.randint(28, 40))
    buf.seek(0)
    return Image.open(buf).convert("L")


def make_scan(folder: str, name: str) -> Path:
    src = HERE / folder / name
    out = src.with_name(src.stem + "_scan.pdf")
    rng = random.Random(_seed(f"{folder}/{name}"))
    doc = pdfium.PdfDocument(src)
    try:
        pages = [
            degrade(doc[i].render(scale=DPI / 72).to_pil(), rng)
            for i in range(min(len(doc), PAGES.get((folder, name), MAX_PAGES)))
        ]
    finally:
        doc.close()
    pages[0].save(
        out,
        "PDF",
        resolution=DPI,
        save_all=True,
        append_images=pages[1:],
        quality=55,
        creationDate=FIXED_DATE,
        modDate=FIXED_DATE,
        title=f"scan of {name}",
        producer="make_scans.py",
    )
    return out


def main() -> None:
    for folder, name in SOURCES:
        out = make_scan(folder, name)
        print(f"{out.relative_to(HERE)}  {out.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
