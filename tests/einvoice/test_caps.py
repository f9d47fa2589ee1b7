"""The safe parser's caps (issue 56): an XML shaped like no invoice is refused while it is
parsed, each with its reason code; every real invoice is far below them; and what they let
through, the business rules' own XML parser (Saxon's) reads, so a refusal never comes from
Saxon as a Java message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.einvoice import EInvoiceError, detect, read
from docflow.einvoice.errors import RULES_REFUSED, RulesRefused
from docflow.einvoice.safe_xml import LIMITS, parse
from docflow.einvoice.saxon import UBL_STYLESHEET, SaxonRules
from tests.einvoice.payees import ubl_page, with_attachments
from tests.einvoice.shapes import nested, node_bomb, with_attributes, with_note

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"


def _reason(data: bytes) -> str:
    with pytest.raises(EInvoiceError) as caught:
        parse(data)
    return caught.value.reason


def test_200000_attributes_on_an_element_are_refused_by_name() -> None:
    data = with_attributes(200_000)
    assert len(data) < 5 * 1024 * 1024  # under the size cap: the shape is what is refused
    with pytest.raises(EInvoiceError) as caught:
        detect(data)
    assert caught.value.reason == "xml-too-many-attributes"
    assert "200000 attributes" in caught.value.message and "line 16" in caught.value.message


def test_namespace_declarations_count_as_attributes_as_saxon_counts_them() -> None:
    assert _reason(with_attributes(10, namespaces=LIMITS.attributes)) == "xml-too-many-attributes"
    parse(with_attributes(LIMITS.attributes - 10, namespaces=10))


def test_a_node_count_bomb_under_the_size_cap_is_refused() -> None:
    data = node_bomb(1_200_000)  # 4.8 MB of empty elements
    assert len(data) < 5 * 1024 * 1024
    assert _reason(data) == "xml-too-many-nodes"
    # Comments and processing instructions are nodes too.
    assert _reason(with_note(b"<!--c-->" * (LIMITS.nodes + 1))) == "xml-too-many-nodes"


def test_depth_and_name_lengths_are_capped() -> None:
    assert _reason(nested(LIMITS.depth + 1)) == "xml-too-deep"
    parse(nested(LIMITS.depth))
    long = b"a" * (LIMITS.name + 1)
    assert _reason(with_note(b"<" + long + b"/>")) == "xml-name-too-long"
    assert _reason(with_note(b"<x " + long + b'="1"/>')) == "xml-name-too-long"
    assert _reason(with_note(b"<?" + long + b" x?>")) == "xml-name-too-long"
    assert _reason(with_note(b'<p:x xmlns:p="urn:' + long + b'"/>')) == "xml-name-too-long"
    assert _reason(with_note(b"<" + long + b":x xmlns:" + long + b'="urn:x"/>')) == (
        "xml-name-too-long"
    )


def test_a_capped_xml_inside_a_pdf_is_refused_as_alone() -> None:
    pdf = with_attachments(ubl_page(), {"factur-x.xml": with_attributes(500)})
    with pytest.raises(EInvoiceError) as caught:
        detect(pdf)
    assert caught.value.reason == "xml-too-many-attributes"


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("**/*.xml")))
def test_every_real_invoice_reads_under_the_caps(name: str) -> None:
    found = next(DATA.glob(f"**/{name}"))
    read(found.read_bytes())


@settings(max_examples=30, deadline=None)
@given(
    attributes=st.integers(0, 3 * LIMITS.attributes),
    namespaces=st.integers(0, 2 * LIMITS.attributes),
)
def test_an_element_is_refused_exactly_when_it_carries_more_than_the_cap(
    attributes: int, namespaces: int
) -> None:
    data = with_attributes(attributes, namespaces)
    if attributes + namespaces > LIMITS.attributes:
        assert _reason(data) == "xml-too-many-attributes"
    else:
        parse(data)


@settings(max_examples=20, deadline=None)
@given(depth=st.integers(3, 2 * LIMITS.depth))
def test_nesting_is_refused_exactly_past_the_cap(depth: int) -> None:
    if depth > LIMITS.depth:
        assert _reason(nested(depth)) == "xml-too-deep"
    else:
        parse(nested(depth))


def test_what_the_caps_let_through_saxon_reads() -> None:
    """At every cap at once, the rules run; one past Saxon's own limits (which the caps stay
    under), Saxon refuses, and its refusal carries its error code, never its Java text."""
    at_caps = with_note(
        b"<x " + b" ".join(b'a%d="1"' % i for i in range(LIMITS.attributes - 1)) + b"/>"
    ).replace(b"<cbc:Note>", b"<cbc:Note>" + b"<y>" * (LIMITS.depth - 3), 1)
    at_caps = at_caps.replace(b"</cbc:Note>", b"</y>" * (LIMITS.depth - 3) + b"</cbc:Note>", 1)
    at_caps = at_caps.replace(b"<x ", b"<" + b"n" * LIMITS.name + b" ", 1)
    parse(at_caps)
    SaxonRules().run(UBL_STYLESHEET, at_caps.decode())
    for beyond in (with_attributes(201), nested(101), with_note(b"<" + b"a" * 1001 + b"/>")):
        with pytest.raises(RulesRefused) as caught:
            SaxonRules().run(UBL_STYLESHEET, beyond.decode())
        assert caught.value.reason == RULES_REFUSED
        assert "SXXP0003" in caught.value.message
        for java in ("JAXP", "jdk.xml", "jaxp.properties", "Exception", "/"):
            assert java not in caught.value.message
