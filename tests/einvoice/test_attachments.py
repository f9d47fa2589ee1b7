"""Every file a PDF embeds is found, wherever the PDF embeds it (the name tree at any depth,
the catalog's or a page's associated files, a file attachment annotation), each once, and a
walk that cannot finish says so (issue 56). Real PDFs, built here with pypdf's objects."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from docflow.einvoice import attachments, detect, read, validate
from docflow.einvoice.attachments import list_attachments
from docflow.einvoice.detect import OtherXml
from docflow.pipeline.extract_einvoice import OTHER_XML, Stored, attachment_checks
from tests.einvoice.payees import attackers_xml, cii_hybrid, facturx_xml, with_attachments

CATALOG = b"<?xml version='1.0'?><catalog/>"


def _spec(writer: PdfWriter, name: str, content: bytes) -> IndirectObject:
    stream = DecodedStreamObject()
    stream.set_data(content)
    stream[NameObject("/Type")] = NameObject("/EmbeddedFile")
    ef = DictionaryObject({NameObject("/F"): writer._add_object(stream)})
    spec = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Filespec"),
            NameObject("/F"): TextStringObject(name),
            NameObject("/UF"): TextStringObject(name),
            NameObject("/EF"): ef,
        }
    )
    return writer._add_object(spec)


def _written(writer: PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _hybrid_writer() -> PdfWriter:
    return PdfWriter(clone_from=io.BytesIO(cii_hybrid(facturx_xml())))


def _names_tree(writer: PdfWriter) -> DictionaryObject:
    names = writer.root_object["/Names"].get_object()
    assert isinstance(names, DictionaryObject)
    tree = names["/EmbeddedFiles"].get_object()
    assert isinstance(tree, DictionaryObject)
    return tree


def test_a_published_hybrid_lists_its_invoice_and_its_delivery_note() -> None:
    from tests.einvoice.payees import FACTURX_PDF

    listing = list_attachments(FACTURX_PDF.read_bytes())
    assert [a.name for a in listing.files] == ["Bon_de_livraison.pdf", "factur-x.xml"]
    assert listing.complete
    found = detect(FACTURX_PDF.read_bytes())
    assert found is not None and found.other_xml == ()  # a PDF attachment is no XML


def test_an_invoice_xml_deep_in_the_name_tree_is_found() -> None:
    """pypdf reads one level of /Kids: a file three levels down is another program's to
    read and docflow's to see."""
    writer = _hybrid_writer()
    tree = _names_tree(writer)
    leaf = DictionaryObject(
        {
            NameObject("/Names"): ArrayObject(
                [TextStringObject("zz.xml"), _spec(writer, "zz.xml", attackers_xml())]
            )
        }
    )
    node: IndirectObject = writer._add_object(leaf)
    for _ in range(3):
        node = writer._add_object(DictionaryObject({NameObject("/Kids"): ArrayObject([node])}))
    tree[NameObject("/Kids")] = ArrayObject([node])
    found = detect(_written(writer))
    assert found is not None and found.attachment == "factur-x.xml"
    assert found.other_xml == (OtherXml("zz.xml", True),) and found.attachments_complete


def test_files_named_only_by_associated_files_or_an_annotation_are_found() -> None:
    writer = _hybrid_writer()
    af = writer.root_object.get("/AF")
    listed = ArrayObject(list(af.get_object()) if af is not None else [])
    listed.append(_spec(writer, "af-only.xml", attackers_xml()))
    writer.root_object[NameObject("/AF")] = listed
    annotation = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/FileAttachment"),
            NameObject("/Rect"): ArrayObject([NumberObject(0)] * 4),
            NameObject("/FS"): _spec(writer, "pinned.xml", CATALOG),
        }
    )
    writer.pages[0][NameObject("/Annots")] = ArrayObject([writer._add_object(annotation)])
    found = detect(_written(writer))
    assert found is not None
    assert found.other_xml == (OtherXml("af-only.xml", True), OtherXml("pinned.xml", False))


def test_one_stream_referenced_twice_is_one_file_and_a_loop_in_the_tree_ends() -> None:
    writer = _hybrid_writer()
    tree = _names_tree(writer)
    names = tree["/Names"].get_object()
    assert isinstance(names, ArrayObject)
    # The invoice's file specification named a second time, and a kid naming the tree itself.
    names.extend([TextStringObject("zzz-again.xml"), names[1]])
    tree[NameObject("/Kids")] = ArrayObject([writer._add_object(tree)])
    found = detect(_written(writer))
    assert found is not None and found.other_xml == ()


def test_a_walk_that_meets_its_bound_is_incomplete(monkeypatch: pytest.MonkeyPatch) -> None:
    data = with_attachments(cii_hybrid(facturx_xml()), {f"n{i}.txt": b"x" for i in range(5)})
    monkeypatch.setattr(attachments, "MAX_LOOKS", 3)
    found = detect(data)
    assert found is not None and not found.attachments_complete


def test_a_file_that_cannot_be_read_makes_the_listing_incomplete() -> None:
    """A stream under a filter no reader knows: not skipped as nothing, counted unread."""
    writer = _hybrid_writer()
    stream = DecodedStreamObject()
    stream.set_data(b"<Invoice/>")
    stream[NameObject("/Filter")] = NameObject("/NoSuchFilter")
    ef = DictionaryObject({NameObject("/F"): writer._add_object(stream)})
    spec = DictionaryObject({NameObject("/F"): TextStringObject("x.xml"), NameObject("/EF"): ef})
    writer.root_object[NameObject("/AF")] = ArrayObject([writer._add_object(spec)])
    found = detect(_written(writer))
    assert found is not None and not found.attachments_complete and found.other_xml == ()


def test_an_xml_that_only_looks_like_one_by_its_content_is_another_xml() -> None:
    data = with_attachments(cii_hybrid(facturx_xml()), {"data.bin": CATALOG, "note.txt": b"hi"})
    found = detect(data)
    assert found is not None and found.other_xml == (OtherXml("data.bin", False),)


def test_a_name_the_sender_chose_is_shown_printable_and_short() -> None:
    data = with_attachments(
        cii_hybrid(facturx_xml()), {"a\x00b\u202e" + "x" * 200 + ".xml": b"<a/>"}
    )
    found = detect(data)
    assert found is not None
    (other,) = found.other_xml
    assert other.name.startswith("a?b?x") and len(other.name) == 80 and other.name.isprintable()


def test_each_finding_about_attachments_is_a_check_that_says_so() -> None:
    """What the extract step adds from einvoice.json: one `other-xml` check per kind."""
    invoice = read(facturx_xml())
    raw = {
        "source": "hybrid",
        "syntax": "cii",
        "attachment": "factur-x.xml",
        "otherXml": [{"name": "b.xml", "invoice": True}, {"name": "c.xml", "invoice": False}],
        "attachmentsComplete": False,
        "invoice": invoice.to_json(),
        "report": validate(facturx_xml(), None).to_json(),
    }
    checks = [c.to_json() for c in attachment_checks(Stored.parse("k", raw))]
    assert [c["code"] for c in checks] == [OTHER_XML] * 3
    assert "carries 2 invoice XMLs: factur-x.xml was read, 'b.xml' not" in checks[0]["message"]
    assert "(factur-x.xml): 'c.xml'" in checks[1]["message"]
    assert "not every attachment of the PDF could be read" in checks[2]["message"]
    older = {k: v for k, v in raw.items() if k not in ("otherXml", "attachmentsComplete")}
    assert attachment_checks(Stored.parse("k", older)) == []
