"""A reviewer's split of a packet into documents at the `split` stage, checked the same way on
the review page, in the callback API (pages and machine callbacks) and where the orchestrator
reads the decision back, so a split that leaves a page out, or puts one in two documents, can
never start a part.

The stage's page count travels in the review link's summary (`split.pages`); a split is a list
of parts `[[first, last], ...]`: every page from 1 to that count in exactly one part, the parts
in page order. The page's form sends the pages where a new document starts ("a new document
starts here", a checkbox per page), which `parts_from_starts` turns into parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

SPLIT_KEY = "split"  # the link summary's {"pages", "parts", "unsure", "planKey"}


class SplitProposal(TypedDict, total=False):
    """The split a link proposes (the orchestrator's packet run writes it): the packet's page
    count, the parts `[first, last, type]`, the unsure boundaries, the page calls' S3 key."""

    pages: int
    parts: list[list[int | str]]
    unsure: list[int]
    planKey: str


def split_of(summary: Mapping[str, Any] | None) -> SplitProposal:
    """The split a link proposes (empty for any other stage's link)."""
    raw: SplitProposal | None = (summary or {}).get(SPLIT_KEY)
    return raw if isinstance(raw, dict) and isinstance(raw.get("pages"), int) else {}


def parts_from_starts(starts: Sequence[int], pages: int) -> list[list[int]]:
    """Pure: the parts a set of start pages makes. Pages before the first start belong to no
    part (the check below says so)."""
    ordered = sorted(set(starts))
    ends = [*(s - 1 for s in ordered[1:]), pages]
    return [[a, b] for a, b in zip(ordered, ends, strict=True)]


def split_problem(parts: Any, pages: int) -> str:
    """What is wrong with a split of a `pages`-page packet, or "" when every page is in
    exactly one part and the parts are in order. The message is written for the reviewer."""
    if not isinstance(parts, list) or not parts:
        return "Mark where at least one document starts"
    expected = 1
    for part in parts:
        if (
            not isinstance(part, list | tuple)
            or len(part) != 2
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in part)
        ):
            return "Each document is a first and a last page"
        first, last = part
        if first > expected:
            if first - 1 == expected:
                return (
                    f"Page {expected} would be in no document: tick where the document that "
                    "holds it starts"
                )
            return (
                f"Pages {expected} to {first - 1} would be in no document: tick where the "
                "documents that hold them start"
            )
        if first < expected or last < first:
            return f"Page {first} would be in two documents: documents cannot overlap"
        if last > pages:
            return f"The packet has {pages} pages; page {last} is not one of them"
        expected = last + 1
    if expected <= pages:
        missing = f"Page {pages}" if expected == pages else f"Pages {expected} to {pages}"
        return f"{missing} would be in no document"
    return ""


def clean_parts(parts: Any) -> list[list[int]]:
    """Parts as plain lists of two ints (after `split_problem` found nothing)."""
    return [[int(a), int(b)] for a, b in parts]
