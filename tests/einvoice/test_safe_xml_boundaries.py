"""The edges of the safe XML parser (`docflow/einvoice/safe_xml.py`), each cap met exactly and
passed by one: the size in bytes, the nodes of each kind it counts, the attributes and namespace
declarations of one element (and only that element), the nesting, the length of every kind of
name; a DTD, an entity or malformed XML each refused with its own reason, whatever chunk the
parser was fed. Small limits keep each case to a few nodes. Each test names the boundary it
guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from pathlib import Path

import pytest

from docflow.einvoice.errors import EInvoiceError
from docflow.einvoice.safe_xml import CHUNK, Limits, parse

SMALL = Limits(attributes=3, depth=3, name=8, nodes=6)


def reason(data: bytes, limits: Limits | None = SMALL, cap: int | None = None) -> str:
    with pytest.raises(EInvoiceError) as refused:
        parse(data, cap=cap, limits=limits)
    return refused.value.reason


def test_the_size_cap_lets_its_own_size_through_and_not_a_byte_more() -> None:
    data = b"<a>x</a>"
    assert parse(data, cap=len(data)).tag == "a"
    assert reason(data, cap=len(data) - 1) == "xml-too-large"
    with pytest.raises(EInvoiceError, match="8 bytes, over the 7 bytes cap"):
        parse(data, cap=7)
    assert parse(data, cap=None).tag == "a"


@pytest.mark.parametrize(
    ("exact", "over"),
    [
        # elements: six, then seven
        (b"<a><b/><b/><b/><b/><b/></a>", b"<a><b/><b/><b/><b/><b/><b/></a>"),
        # an element and its attributes
        (b'<a x="1" y="2"><b/><b/><b/></a>', b'<a x="1" y="2"><b/><b/><b/><b/></a>'),
        # a namespace declaration counts as a node
        (b'<a xmlns:p="u"><b/><b/><b/><b/></a>', b'<a xmlns:p="u"><b/><b/><b/><b/><b/></a>'),
        # comments and processing instructions too
        (b"<a><!--c--><?p x?><b/><b/><b/></a>", b"<a><!--c--><?p x?><b/><b/><b/><b/></a>"),
    ],
)
def test_the_node_cap_counts_every_kind_of_node_to_its_last(exact: bytes, over: bytes) -> None:
    parse(exact, limits=SMALL)
    assert reason(over) == "xml-too-many-nodes"
    with pytest.raises(EInvoiceError, match="over 6 nodes"):
        parse(over, limits=SMALL)


def test_an_elements_attributes_and_its_own_declarations_meet_the_cap_exactly() -> None:
    parse(b'<a x="1" y="2" z="3"/>', limits=SMALL)
    parse(b'<a xmlns="u" xmlns:p="v" x="1"/>', limits=SMALL)
    assert reason(b'<a w="0" x="1" y="2" z="3"/>') == "xml-too-many-attributes"
    assert reason(b'<a xmlns="u" xmlns:p="v" x="1" y="2"/>') == "xml-too-many-attributes"
    with pytest.raises(EInvoiceError, match="at line 2 has 4 attributes"):
        parse(b'<r>\n<a w="0" x="1" y="2" z="3"/></r>', limits=Limits(attributes=3))
    # Declarations count on the element that makes them, not on its children.
    parse(b'<a xmlns="u" xmlns:p="v" x="1"><b y="1" z="2" w="3"/></a>', limits=Limits(attributes=3))


def test_nesting_meets_the_cap_exactly_and_siblings_do_not_add_up() -> None:
    parse(b"<a><b><c/></b></a>", limits=SMALL)
    assert reason(b"<a><b><c><d/></c></b></a>") == "xml-too-deep"
    with pytest.raises(EInvoiceError, match="nested 4 deep at line 1; an e-invoice nests at"):
        parse(b"<a><b><c><d/></c></b></a>", limits=SMALL)
    parse(b"<a><b><c/></b><b><c/></b></a>", limits=Limits(depth=3))


@pytest.mark.parametrize(
    ("exact", "over"),
    [
        (b"<abcdefgh/>", b"<abcdefghi/>"),  # an element's name
        (b'<a abcdefgh="1"/>', b'<a abcdefghi="1"/>'),  # an attribute's
        (b'<a xmlns="abcdefgh"/>', b'<a xmlns="abcdefghi"/>'),  # a namespace URI
        (b'<abcdefgh:a xmlns:abcdefgh="u"/>', b'<abcdefghi:a xmlns:abcdefghi="u"/>'),  # a prefix
        (b"<a><?abcdefgh x?></a>", b"<a><?abcdefghi x?></a>"),  # a PI's target
    ],
)
def test_every_kind_of_name_meets_the_length_cap_exactly(exact: bytes, over: bytes) -> None:
    parse(exact, limits=SMALL)
    assert reason(over) == "xml-name-too-long"


def test_a_too_long_name_says_its_line_where_it_has_one() -> None:
    with pytest.raises(EInvoiceError, match=r"of 9 characters at line 2; an e-invoice's"):
        parse(b"<a>\n<abcdefghi/></a>", limits=SMALL)
    with pytest.raises(EInvoiceError, match=r"of 9 characters; an e-invoice's"):
        parse(b'<a xmlns="abcdefghi"/>', limits=SMALL)  # a declaration has no line of its own


def test_no_limits_count_nothing_but_the_dtd_is_still_refused() -> None:
    deep = b"<a>" * 80 + b"</a>" * 80
    assert parse(deep, limits=None).tag == "a"
    assert reason(b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', limits=None) == "xml-unsafe"


@pytest.mark.parametrize(
    "data",
    [
        b"<!DOCTYPE a><a/>",
        b'<!DOCTYPE a SYSTEM "http://example.com/a.dtd"><a/>',
        b'<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>',
        b'<!DOCTYPE a [<!ENTITY e "x">]><a/>',
    ],
)
def test_a_dtd_or_an_entity_is_refused_as_unsafe(data: bytes) -> None:
    assert reason(data) == "xml-unsafe"


def test_malformed_xml_is_refused_as_malformed_with_the_parsers_words() -> None:
    assert reason(b"<a><b></a>") == "xml-malformed"
    assert reason(b"") == "xml-malformed"
    with pytest.raises(EInvoiceError, match=r"^xml-malformed: \S"):
        parse(b"<a>&undeclared;</a>")


def test_a_document_fed_in_many_chunks_reads_whole_and_is_counted_whole() -> None:
    filler = b"<b>" + b"x" * 1000 + b"</b>"
    count = (3 * CHUNK) // len(filler)
    data = b"<a>" + filler * count + b"</a>"
    assert len(data) > 2 * CHUNK
    assert len(parse(data)) == count
    assert reason(data, limits=Limits(nodes=count)) == "xml-too-many-nodes"
    parse(data, limits=Limits(nodes=count + 1))
    # A cap met only in the last chunk's events (read after close) still stops it.
    tail = b"<a>" + filler * count + b"<!--last--></a>"
    assert reason(tail, limits=Limits(nodes=count + 1)) == "xml-too-many-nodes"


def message(data: bytes, limits: Limits | None = SMALL, cap: int | None = None) -> str:
    with pytest.raises(EInvoiceError) as refused:
        parse(data, cap=cap, limits=limits)
    return str(refused.value)


def test_an_external_dtd_or_entity_is_never_loaded(tmp_path: Path) -> None:
    """XXE: a DTD or an entity naming a file is refused for its DOCTYPE after a whole parse,
    and the file is never read. Read, the DTD's entity would give seven elements (over the
    node cap of six) and the malformed file a parse error: either would say so instead."""
    dtd = tmp_path / "invoice.dtd"
    dtd.write_text('<!ENTITY e "<b/><b/><b/><b/><b/><b/><b/>">\n', "utf-8")
    broken = tmp_path / "broken.xml"
    broken.write_text("<<< not xml", "utf-8")
    unsafe = "xml-unsafe: a DTD or entity declaration (DOCTYPE)"
    assert message(f'<!DOCTYPE a SYSTEM "{dtd}"><a>&e;</a>'.encode()) == unsafe
    assert message(f'<!DOCTYPE a SYSTEM "{dtd.as_uri()}"><a>&e;</a>'.encode()) == unsafe
    assert message(f'<!DOCTYPE a [<!ENTITY e SYSTEM "{broken}">]><a>&e;</a>'.encode()) == unsafe
    assert message(f'<!DOCTYPE a [<!ENTITY e SYSTEM "{dtd}">]><a>&e;</a>'.encode()) == unsafe


def test_a_dtd_or_entity_the_parser_trips_on_is_still_refused_as_unsafe() -> None:
    # An undeclared entity under a DOCTYPE, and an entity declared where no DTD is, are parse
    # errors: refused as unsafe whichever of the two the text holds, never as merely malformed.
    said = "xml-unsafe: a DTD or entity declaration"
    assert message(b"<!DOCTYPE a><a>&e;</a>") == said
    assert message(b'<a><!ENTITY e "x"></a>') == said
    # XML is case-sensitive: `<!doctype` is no declaration, only malformed.
    assert reason(b"<!doctype a><a/>") == "xml-malformed"


def test_malformed_xml_says_where_the_parser_stopped() -> None:
    said = message(b"<a>\n<b></a>")
    assert said.startswith("xml-malformed: ") and "line 2" in said and "None" not in said


def test_libxml2s_own_limits_still_hold_where_the_caps_are_off() -> None:
    # cap=None and limits=None are for what this process produced itself; the parser still
    # refuses what no tree should hold (huge_tree off): nesting past libxml2's 256.
    deep = b"<a>" * 300 + b"</a>" * 300
    assert reason(deep, limits=None) == "xml-malformed"
    parse(b"<a>" * 200 + b"</a>" * 200, limits=None)


def test_the_node_cap_says_what_it_counts_in_words() -> None:
    over = b"<a><b/><b/><b/><b/><b/><b/></a>"
    assert message(over) == (
        "xml-too-many-nodes: over 6 nodes (elements, attributes, comments); an e-invoice has "
        "far fewer"
    )


def test_depth_falls_by_one_at_each_end_so_a_later_branch_is_measured_whole() -> None:
    # a, b, c at depth 3; c closes (2) and a second c opens (3) holding d (4): too deep. Were
    # the depth to fall further at an end, the second branch would pass.
    assert reason(b"<a><b><c/><c><d/></c></b></a>") == "xml-too-deep"
    assert reason(b"<a><b><c/></b><b><c><d/></c></b></a>") == "xml-too-deep"
    parse(b"<a><b><c/><c/></b><b><c/></b></a>", limits=SMALL)


def test_a_too_long_processing_instruction_says_its_line() -> None:
    with pytest.raises(EInvoiceError, match=r"of 9 characters at line 2; an e-invoice's"):
        parse(b"<a>\n<?abcdefghi x?></a>", limits=SMALL)
