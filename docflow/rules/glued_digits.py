"""Digits a page prints apart, kept apart in its text (issue 56, item 5).

A text layer's text can glue two words the page prints apart: PDFium gives
`Card 4111.1111.1111.11112 10.00` for a card number and the quantity printed a column to its
right, a run whose last group no card ends on, so the card detector finds nothing and the card
would reach the summary's abstract and the review page's text whole. The reading's words are
cut where the characters are (readers/textlayer.py), so they keep the two apart. Before a text
made from a page is searched for detected values, a space goes where two of its words meet
digit to digit with nothing between them; nothing else of the text changes.
"""

from __future__ import annotations

from collections.abc import Iterable


def digits_apart(text: str, words: Iterable[str]) -> str:
    """`text` with a space between two words that touch digit to digit in it.

    `words` are the page's words in reading order, as the reading that gave `text` cut them
    (their characters, spaces aside, are the text's). Where they are not the text's (another
    reading, a page whose words were capped), the part they cover is kept apart and the rest
    left as it is; a text that does not start with the words' characters is returned as is."""
    starts: set[int] = set()
    at = 0
    stream: list[str] = []
    for word in words:
        chars = "".join(word.split())
        if chars:
            starts.add(at)
            at += len(chars)
            stream.append(chars)
    if at == 0:
        return text
    covered = "".join(stream)
    out: list[str] = []
    seen = 0  # the text's characters so far, spaces aside
    previous = ""  # the last character written, "" after a space
    for ch in text:
        if ch.isspace():
            out.append(ch)
            previous = ""
            continue
        if seen < at:
            if ch != covered[seen]:
                return text  # not the words of this text
            if seen in starts and previous.isdigit() and ch.isdigit():
                out.append(" ")
        out.append(ch)
        previous = ch
        seen += 1
    return "".join(out) if seen >= at else text
