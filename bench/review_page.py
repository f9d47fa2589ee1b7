"""The review page's speed and size on the real local stack, through the callback API as a
reviewer's browser reaches it (HTTP to the Function URL frontend).

A 20-page scanned contract (300 dpi, with scanner speckle, a card number on page 7) goes
through the pipeline to its first review stage; then the page is opened several times, every
page's preview is fetched cold (rendered, values covered, cached in S3) and again warm.

Then a reviewer's inbox: 200 stages pending on one reviewer among 10,000 documents pending
on others in the review tables (bench/_inbox_fill.py), and the inbox page opened several times.

    python bench/review_page.py [--pages N] [--opens N] [--smoke] [--inbox-only]

Prints one JSON object:
    {"page_open_ms_p50", "preview_cold_ms_p50", "preview_warm_ms_p50", "preview_bytes_max",
     "pages", "page_open_ms_max", "preview_cold_ms_max", "preview_warm_ms_max",
     "inbox_open_ms_p50", "inbox_open_ms_max", "inbox_index_query_ms_p50", "inbox_pending",
     "inbox_documents", "inbox_items_read"}
`inbox_items_read` is what one inbox page reads: the inbox items its Query evaluated plus
the stage records of its BatchGetItem (claims, endings); `inbox_index_query_ms_p50` times
that Query alone (of the reviewer's partition of the inbox table, strongly consistent)
against the local stack's moto, from the benchmark's process. Targets: page open
under 300 ms, a cold preview under 1 s, a cached one under 50 ms, no preview over 400 KB,
the inbox under 300 ms (smoke: 40 pending among 1,000).
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
import urllib.request

from _common import emit, quiet
from _inbox_fill import REVIEWER, fill
from _reliability.harness import Stack
from PIL import Image
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.keys import build_key_source
from docflow.review.stage.inbox import InboxIndex
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links
from tests.kit.pdfgen import page_image

CLAUSES = [
    "The parties hereby agree to the terms and conditions set out below.",
    "The supplier shall deliver the services described in Schedule A.",
    "Fees are payable within thirty days of the date of each invoice.",
    "Either party may terminate this agreement on ninety days notice.",
    "Governing law: the laws of the State of Delaware apply.",
]


def scanned_page(number: int, rng: random.Random) -> Image.Image:
    lines = [f"SERVICES AGREEMENT - page {number}", ""]
    lines += [rng.choice(CLAUSES) for _ in range(18)]
    if number == 7:
        lines.append("Payment card on file: 4111 1111 1111 1111")
    image = page_image("\n".join(lines), dpi=300)
    # A scanner's speckle: what makes real scans expensive to compress.
    pixels = image.load()
    width, height = image.size
    for _ in range(width * height // 200):
        pixels[rng.randrange(width), rng.randrange(height)] = rng.randrange(120, 256)
    return image


def scanned_pdf(pages: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    for n in range(1, pages + 1):
        c.drawImage(ImageReader(scanned_page(n, rng)), 0, 0, width=letter[0], height=letter[1])
        c.showPage()
    c.save()
    return out.getvalue()


def timed_get(url: str) -> tuple[float, bytes, int]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as answer:
        body = answer.read()
        status = answer.status
    return (time.perf_counter() - started) * 1000, body, status


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--opens", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="8 pages, 3 opens, small inbox")
    parser.add_argument("--inbox-only", action="store_true", help="only the inbox figures")
    args = parser.parse_args()
    documents, mine = 10_000, 200
    if args.smoke:
        args.pages, args.opens = 8, 3
        documents, mine = 1000, 40
    quiet()
    if args.inbox_only:
        with Stack.running() as stack:
            emit(inbox_opens(stack.config.review_url, documents, mine, 10))
        return
    with Stack.running() as stack:
        doc = stack.upload("incoming/scanned-agreement.pdf", scanned_pdf(args.pages))
        states = stack.wait_settled([doc], timeout_s=600)
        state = states.get(doc.run_id, {})
        if state.get("status") != "pending-review":
            raise SystemExit(f"the document did not reach review: {state.get('status')}")
        (link, *_) = wait_for_links(stack.config.state, 1, run_id=doc.run_id, stage_index=0)

        opens = []
        for _ in range(args.opens):
            ms, _, status = timed_get(link.url)
            assert status == 200
            opens.append(ms)
        cold, warm, sizes = [], [], []
        for page in range(1, args.pages + 1):
            ms, body, _ = timed_get(f"{link.url}/pages/{page}")
            cold.append(ms)
            sizes.append(len(body))
        for page in range(1, args.pages + 1):
            ms, _, _ = timed_get(f"{link.url}/pages/{page}")
            warm.append(ms)
        inbox = inbox_opens(stack.config.review_url, documents, mine, max(args.opens, 5))
    emit(
        {
            "page_open_ms_p50": p50(opens),
            "preview_cold_ms_p50": p50(cold),
            "preview_warm_ms_p50": p50(warm),
            "preview_bytes_max": max(sizes),
            "pages": args.pages,
            "page_open_ms_max": round(max(opens), 1),
            "preview_cold_ms_max": round(max(cold), 1),
            "preview_warm_ms_max": round(max(warm), 1),
            **inbox,
        }
    )


def inbox_opens(base: str, documents: int, mine: int, opens: int) -> dict[str, object]:
    settings = load_settings()
    ring = build_key_source(settings).ring()
    fill(settings.links_table, settings.inbox_table, ring, documents, mine)
    token = InboxLinks(settings.links_table).issue(REVIEWER, ring, 3600)
    times = []
    for _ in range(opens):
        ms, body, status = timed_get(f"{base}/inbox/{token}")
        assert status == 200 and body.count(b'class="open"') == 20
        times.append(ms)
    # The inbox Query alone, from here: how much of an open is the local DynamoDB's.
    index, query_ms = InboxIndex(settings.links_table, settings.inbox_table), []
    for _ in range(5):
        started = time.perf_counter()
        page = index.page(REVIEWER)
        query_ms.append((time.perf_counter() - started) * 1000)
    return {
        "inbox_open_ms_p50": p50(times),
        "inbox_open_ms_max": round(max(times), 1),
        "inbox_index_query_ms_p50": p50(query_ms),
        "inbox_pending": mine,
        "inbox_documents": documents,
        "inbox_items_read": page.items_read + len(page.items),
    }


if __name__ == "__main__":
    main()
