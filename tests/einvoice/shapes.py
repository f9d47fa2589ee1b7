"""XML shaped like no invoice, made from the CEN UBL example: too many attributes on an
element, too deep, a node-count bomb (the safe parser's caps, issue 56)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
UBL = (DATA / "cen-ubl-example1.xml").read_bytes()
OPEN_ID = b"<cbc:ID>"
assert UBL.count(OPEN_ID) > 0


def with_attributes(count: int, namespaces: int = 0) -> bytes:
    """The CEN UBL example whose first cbc:ID carries `count` attributes and `namespaces`
    namespace declarations."""
    attributes = " ".join(f'a{i}="1"' for i in range(count))
    declared = " ".join(f'xmlns:n{i}="urn:n{i}"' for i in range(namespaces))
    return UBL.replace(OPEN_ID, f"<cbc:ID {attributes} {declared}>".encode(), 1)


def with_note(inner: bytes) -> bytes:
    """The CEN UBL example with `inner` in a note after its number."""
    return UBL.replace(b"</cbc:ID>", b"</cbc:ID><cbc:Note>" + inner + b"</cbc:Note>", 1)


def nested(depth: int) -> bytes:
    """Elements nested to `depth` in all (the root is 1; the note 2)."""
    inner = depth - 2
    return with_note(b"<x>" * inner + b"</x>" * inner)


def node_bomb(elements: int) -> bytes:
    return with_note(b"<a/>" * elements)
