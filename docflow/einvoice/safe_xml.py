"""The one way this package parses XML: capped, without DTD, entities or network.

An e-invoice syntax (UBL 2.1, CII, ZUGFeRD 1.0) never needs a DTD, so any DOCTYPE is refused
outright: that closes XXE (an entity naming a file or URL) and entity bombs (billion laughs)
without relying on a parser's expansion limits.

The XML is parsed as a stream and counted as it comes, so a document shaped like no invoice
is refused before it is built whole, each with a reason code of its own (`errors.py`):

    cap                                   here      real invoices*   Saxon's parser refuses
    attributes and namespace declarations  50        11               over 200
      on one element
    nesting depth                         50        9                over 100
    a name, prefix or namespace URI       256 chars 52 (names),      over 1,000
                                                    82 (URIs)
    nodes (elements, attributes, names-   250,000   1,091; at most   (none; its time grows
      pace declarations, comments, PIs)             about 129,000    with them: 6 s for a
                                                    under the 5 MB   million on the UBL
                                                    cap**            rules)

    * 166 real invoices: tests/data/einvoice, CEN's examples (ConnectingEurope/
      eInvoicing-EN16931) and KoSIT's XRechnung test suite, measured on 2026-12-07.
    ** the densest of them, 40.7 bytes a node, filled to the 5 MB size cap.

Each cap is far above any real invoice and, where the rules' XML parser (Saxon's JAXP) has a
limit, under it: what this parser accepts, the business rules can read, so a refusal comes
here with its reason, never from Saxon as a Java message."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lxml import etree

from docflow.einvoice.errors import EInvoiceError

# Real invoices with hundreds of lines stay far under 1 MB: the cap is for what is not one.
MAX_XML_BYTES = 5 * 1024 * 1024
CHUNK = 64 * 1024  # fed to the parser at a time, so that a cap stops it early


@dataclass(frozen=True)
class Limits:
    """The shape caps (the table above)."""

    attributes: int = 50
    depth: int = 50
    name: int = 256
    nodes: int = 250_000


LIMITS = Limits()


def _parser() -> etree.XMLPullParser:
    return etree.XMLPullParser(
        events=("start", "end", "start-ns", "comment", "pi"),
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=False,
    )


def parse(
    data: bytes, cap: int | None = MAX_XML_BYTES, limits: Limits | None = LIMITS
) -> etree._Element:
    """The root element of `data`, or an EInvoiceError naming why not. `cap=None` and
    `limits=None` only for what this process produced itself (Saxon's report on an invoice
    already under the caps)."""
    if cap is not None and len(data) > cap:
        raise EInvoiceError("xml-too-large", f"{len(data)} bytes, over the {cap} bytes cap")
    parser = _parser()
    shape = _Shape(limits)
    try:
        for start in range(0, len(data), CHUNK):
            parser.feed(data[start : start + CHUNK])
            shape.count(parser.read_events())
        root = parser.close()
        shape.count(parser.read_events())
    except etree.XMLSyntaxError as err:
        # lxml refuses an undeclared or unexpanded entity as a syntax error: say what it was.
        if b"<!ENTITY" in data or b"<!DOCTYPE" in data:
            raise EInvoiceError("xml-unsafe", "a DTD or entity declaration") from err
        raise EInvoiceError("xml-malformed", str(err)) from err
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise EInvoiceError("xml-unsafe", "a DTD or entity declaration (DOCTYPE)")
    if any(isinstance(node, etree._Entity) for node in root.iter()):
        raise EInvoiceError("xml-unsafe", "an entity reference")
    return root


def _local(name: str) -> str:
    return name[name.find("}") + 1 :]


class _Shape:
    """Counts the parser's events against the limits; raises at the first one over."""

    def __init__(self, limits: Limits | None) -> None:
        self.limits = limits
        self.nodes = self.depth = self.declared = 0

    def count(self, events: Iterable[tuple[str, Any]]) -> None:
        limits = self.limits
        if limits is None:
            for _ in events:  # drained, so that the parser does not keep them
                pass
            return
        for event, item in events:
            if event == "start-ns":  # (prefix, uri), before the element declaring it
                prefix, uri = item
                self._name(max(len(prefix or ""), len(uri)), None, limits)
                self.declared += 1
                self._node(1, limits)
            elif event == "start":
                self._element(item, limits)
            elif event == "end":
                self.depth -= 1
            else:  # a comment or a processing instruction
                if event == "pi":
                    self._name(len(item.target or ""), item.sourceline, limits)
                self._node(1, limits)

    def _element(self, element: etree._Element, limits: Limits) -> None:
        self.depth += 1
        if self.depth > limits.depth:
            raise EInvoiceError(
                "xml-too-deep",
                f"elements nested {self.depth} deep at line {element.sourceline}; an "
                f"e-invoice nests at most {limits.depth}",
            )
        attrib = element.attrib
        attributes = len(attrib) + self.declared
        self.declared = 0
        if attributes > limits.attributes:
            raise EInvoiceError(
                "xml-too-many-attributes",
                f"an element at line {element.sourceline} has {attributes} attributes and "
                f"namespace declarations; an e-invoice's have at most {limits.attributes}",
            )
        # `{namespace}local`: the namespace was measured where it was declared.
        longest = len(_local(str(element.tag)))
        for key in attrib:
            longest = max(longest, len(_local(str(key))))
        self._name(longest, element.sourceline, limits)
        self._node(1 + len(attrib), limits)

    def _name(self, length: int, line: int | None, limits: Limits) -> None:
        if length > limits.name:
            where = f" at line {line}" if line else ""
            raise EInvoiceError(
                "xml-name-too-long",
                f"a name or namespace of {length} characters{where}; an e-invoice's have "
                f"at most {limits.name}",
            )

    def _node(self, more: int, limits: Limits) -> None:
        self.nodes += more
        if self.nodes > limits.nodes:
            raise EInvoiceError(
                "xml-too-many-nodes",
                f"over {limits.nodes} nodes (elements, attributes, comments); an e-invoice "
                "has far fewer",
            )
