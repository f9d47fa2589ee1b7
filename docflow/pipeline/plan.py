"""How a document's pages are grouped into batches (pure, so it is safe outside a step)."""

from __future__ import annotations

import math


def plan_batches(
    pages: int, batch_size: int, concurrency: int, max_batches: int
) -> list[list[int]]:
    """Inclusive [first, last] page ranges, 1-based.

    A small document is spread over the concurrency slots so its pages are read side by side;
    a large one uses the configured batch size; a huge one gets larger batches so the count
    never passes `max_batches`, which bounds the execution's durable operations.
    """
    if pages < 1:
        return []
    size = min(batch_size, math.ceil(pages / concurrency))
    size = max(size, math.ceil(pages / max_batches), 1)
    return [[first, min(first + size - 1, pages)] for first in range(1, pages + 1, size)]


def without_pages(batches: list[list[int]], skipped: tuple[int, ...]) -> list[list[int]]:
    """The batches with `skipped` pages cut out (a packet's pages PDFium refused), each batch
    split around them; at most one more batch per skipped page."""
    if not skipped:
        return batches
    gone = set(skipped)
    out: list[list[int]] = []
    for first, last in batches:
        run: list[int] = []
        for page in range(first, last + 1):
            if page in gone:
                if run:
                    out.append([run[0], run[-1]])
                run = []
            else:
                run.append(page)
        if run:
            out.append([run[0], run[-1]])
    return out
