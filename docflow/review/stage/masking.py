"""Masking detected values (a card number, an SSN, an IBAN) for what a reviewer sees: the
page text, a field's value, and the check that a value sent back as the page showed it is no
correction. In the room's ground floor so that the desk's form checks and the pages share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from docflow.rules.detectors import find_all


@dataclass(frozen=True)
class Segment:
    """A run of page text, or (with `detector`) a masked value standing for a detected one."""

    text: str
    detector: str = ""


def mask(text: str, detectors: tuple[str, ...] | None = None) -> list[Segment]:
    segments: list[Segment] = []
    at = 0
    for finding in find_all(text, detectors):
        if finding.start > at:
            segments.append(Segment(text[at : finding.start]))
        segments.append(Segment(finding.masked, finding.detector))
        at = finding.end
    if at < len(text):
        segments.append(Segment(text[at:]))
    return segments


def masked_value(value: str) -> str:
    """An extracted field's value as the page may show it: a detected value (a card number
    read as an "invoice number") masked as it is in the page text."""
    return "".join(s.text for s in mask(value))
