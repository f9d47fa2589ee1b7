"""CPU seconds of OCR per scanned page: the rules file's seven languages against English alone.

    python bench/ocr_languages.py            6 pages of each kind, after one warm-up page
    python bench/ocr_languages.py --smoke    1 page of each kind, 8 lines instead of 28
    python bench/ocr_languages.py --pages N  N pages of each kind

Each page is rendered once, then read by the tesseract reader in three ways, for each binding
(`tesserocr`, tesseract kept loaded in this process; `cli`, a tesseract process per run):

    english     `-l eng` only (the floor: what one language costs)
    all         every page with the seven languages (the reader before issue 33)
    identified  a first pass with the list's first language, the language identifier on its
                words, and a second pass with the page's own languages only if they differ

CPU time, not wall time (the machine is shared): user+sys of this process and of its children
(`resource.getrusage`), read before and after the pages, in one thread. Page kinds: `full`
(a 28-line English report page, as bench/throughput.py's), `short` (its three-line page) and
`german` (a German letter: the cost of a page not in the first language). The last line of
stdout is one JSON object:

    pages                       pages measured of each kind
    <binding>.<kind>.<way>      CPU seconds per page
    <binding>.<kind>.choice     what `identified` chose ({languages, identified, probability,
                                reason})
    <binding>.warmup_cpu_s      the first page's CPU in each way (loading the models)
    binding                     the pipeline's binding (tesserocr where it imports)
    ocr_vs_english              that binding, `all` / `english`, full English pages: the
                                pipeline's reader (the whole list, `[ocr] identify = false`)
                                against English alone; target <= 1.2
    ocr_vs_english_short        the same on short pages
    identified_vs_english       that binding, `identified` / `english`, full English pages
    cli_all_vs_english          the reader before issue 33 (a process per page, seven
                                languages) against English alone
    now_vs_before               the pipeline's reader now against before, full pages
"""

from __future__ import annotations

import argparse
import os
import resource
from typing import Any

import _common

from docflow.pdf import open_pdf
from docflow.readers.tesseract import TesseractReader
from docflow.readers.tesseract_engines import ApiEngine, CliEngine, TsvEngine, tessdata_dir
from docflow.rules.model import load_rules
from tests.kit.pdfgen import make_pdf

BODY = [
    "Revenue grew in the north region while costs held flat against plan.",
    "The analysis below compares each region with the same quarter last year.",
    "Findings: customer retention improved and the backlog shrank by a third.",
    "Summary of the quarter: margins widened on lower logistics spending.",
    "Appendix tables list every account with its change over the period.",
]
GERMAN = [
    "Sehr geehrte Damen und Herren, wir berechnen Ihnen die Lieferung vom Montag.",
    "Bitte überweisen Sie den Betrag innerhalb von vierzehn Tagen auf unser Konto.",
    "Die Ware bleibt bis zur vollständigen Bezahlung unser Eigentum.",
    "Bei Rückfragen erreichen Sie unsere Buchhaltung werktags von acht bis vier Uhr.",
    "Mit freundlichen Grüßen aus der Geschäftsstelle in Köln.",
]


def page(title: str, lines: list[str], count: int) -> bytes:
    text = title + "\n" + "\n".join(lines[i % len(lines)] for i in range(count))
    with open_pdf(make_pdf([("scan", text)])) as pdf:
        return pdf.render_png(1, 200)


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(reader: TesseractReader, png: bytes, pages: int) -> tuple[float, float, Any]:
    """(warm-up CPU, CPU per page, the last page's language choice)."""
    began = cpu()
    reader.ocr_page(png)
    warm = cpu() - began
    began = cpu()
    choice = None
    for _ in range(pages):
        choice = reader.ocr_page(png)[3]
    return warm, (cpu() - began) / pages, choice


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="JSON: see the module docstring (pages, <binding>.<kind>.<way>, ocr_vs_english, "
        "ocr_vs_english_short, identified_vs_english, cli_all_vs_english, now_vs_before)",
    )
    parser.add_argument("--smoke", action="store_true", help="one shorter page of each kind")
    parser.add_argument("--pages", type=int, default=6, help="pages of each kind (default 6)")
    args = parser.parse_args()
    _common.quiet()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    pages = 1 if args.smoke else max(1, args.pages)
    languages = load_rules().ocr_languages
    lines = 8 if args.smoke else 28  # the smoke shows the benchmark runs, not the figure
    kinds = {
        "full": page("QUARTERLY REPORT 1-1", BODY, lines),
        "short": page("QUARTERLY REPORT 1-1", BODY, 2),
        "german": page("RECHNUNG 2024-118", GERMAN, lines),
    }
    engines: dict[str, TsvEngine] = {"cli": CliEngine()}
    tessdata = tessdata_dir()
    try:
        import tesserocr  # noqa: F401

        if tessdata:
            engines["tesserocr"] = ApiEngine(tessdata)
    except ImportError:
        pass
    out: dict[str, Any] = {"pages": pages, "languages": languages}
    for binding, engine in engines.items():
        ways = {
            "english": TesseractReader(language="eng", engine=engine),
            "all": TesseractReader(language=languages, identify=False, engine=engine),
            "identified": TesseractReader(language=languages, identify=True, engine=engine),
        }
        section: dict[str, Any] = {"warmup_cpu_s": {}}
        for kind, png in kinds.items():
            row: dict[str, Any] = {}
            for way, reader in ways.items():
                warm, per_page, choice = measure(reader, png, pages)
                row[way] = round(per_page, 3)
                section["warmup_cpu_s"].setdefault(way, round(warm, 3))
                if way == "identified":
                    row["choice"] = choice.to_json()
            section[kind] = row
        out[binding] = section
    best = out.get("tesserocr", out["cli"])
    out["binding"] = "tesserocr" if "tesserocr" in out else "cli"
    out["ocr_vs_english"] = round(best["full"]["all"] / best["full"]["english"], 2)
    out["ocr_vs_english_short"] = round(best["short"]["all"] / best["short"]["english"], 2)
    out["identified_vs_english"] = round(best["full"]["identified"] / best["full"]["english"], 2)
    cli = out["cli"]
    out["cli_all_vs_english"] = round(cli["full"]["all"] / cli["full"]["english"], 2)
    out["now_vs_before"] = round(best["full"]["all"] / cli["full"]["all"], 2)
    _common.emit(out)


if __name__ == "__main__":
    main()
