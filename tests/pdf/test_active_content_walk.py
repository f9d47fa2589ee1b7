"""Active content past the old walk's bounds (issue 56, item 6): a `/Next` chain deeper than
16, JavaScript on a bookmark, an XFA form's scripts, and a script behind 20,001 padding
annotations went unflagged. The walk is iterative now and looks everywhere a viewer runs
something; where it cannot finish it says `unknown`, never "none"; actions that reach outside
the file are flagged `external`. Each PDF is built with pypdf from a real reportlab page."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

from docflow.pdf_actions import MAX_LOOKS, active_content
from tests.kit import pdfgen as pdfs

PLAIN = pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)
Change = Callable[[PdfWriter], None]


def rewritten(change: Change, data: bytes = PLAIN) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    change(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def action(kind: str, **more: object) -> DictionaryObject:
    found = DictionaryObject({NameObject("/S"): NameObject(kind)})
    for key, value in more.items():
        found[NameObject(f"/{key}")] = value  # type: ignore[assignment]
    return found


def script() -> DictionaryObject:
    return action("/JavaScript", JS=TextStringObject("app.alert('hello');"))


def goto() -> DictionaryObject:
    return action("/GoTo", D=ArrayObject([NumberObject(0), NameObject("/Fit")]))


def chained(writer: PdfWriter, length: int, last: DictionaryObject) -> IndirectObject:
    """`length` GoTo actions chained by /Next, ending in `last`; the first one's reference."""
    ref = writer._add_object(last)
    for _ in range(length):
        step = goto()
        step[NameObject("/Next")] = ref
        ref = writer._add_object(step)
    return ref


def deep_next_chain(writer: PdfWriter) -> None:
    writer._root_object[NameObject("/OpenAction")] = chained(writer, 40, script())


def bookmark_script(writer: PdfWriter) -> None:
    # A plain bookmark, then (its /Next) one whose child runs a script.
    child = writer._add_object(DictionaryObject({NameObject("/Title"): TextStringObject("b")}))
    child.get_object()[NameObject("/A")] = writer._add_object(script())
    second = DictionaryObject(
        {NameObject("/Title"): TextStringObject("second"), NameObject("/First"): child}
    )
    first = DictionaryObject(
        {
            NameObject("/Title"): TextStringObject("first"),
            NameObject("/A"): goto(),
            NameObject("/Next"): writer._add_object(second),
        }
    )
    outlines = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Outlines"),
            NameObject("/First"): writer._add_object(first),
        }
    )
    writer._root_object[NameObject("/Outlines")] = writer._add_object(outlines)


def xfa_form(writer: PdfWriter) -> None:
    xfa = StreamObject()
    xfa.set_data(b"<xdp:xdp><script contentType='application/x-javascript'>x()</script></xdp:xdp>")
    form = DictionaryObject(
        {NameObject("/Fields"): ArrayObject(), NameObject("/XFA"): writer._add_object(xfa)}
    )
    writer._root_object[NameObject("/AcroForm")] = writer._add_object(form)


def link(a: DictionaryObject | None = None, aa: DictionaryObject | None = None) -> DictionaryObject:
    annotation = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Link"),
            NameObject("/Rect"): ArrayObject([NumberObject(n) for n in (72, 72, 200, 100)]),
        }
    )
    if a is not None:
        annotation[NameObject("/A")] = a
    if aa is not None:
        annotation[NameObject("/AA")] = aa
    return annotation


def padded_annotations(writer: PdfWriter) -> None:
    # 20,001 links with no action, then one running a script.
    padding = [link() for _ in range(MAX_LOOKS + 1)]
    writer.pages[0][NameObject("/Annots")] = ArrayObject([*padding, link(script())])


def field_kid_script(writer: PdfWriter) -> None:
    kid = DictionaryObject(
        {
            NameObject("/FT"): NameObject("/Tx"),
            NameObject("/AA"): DictionaryObject({NameObject("/K"): script()}),
        }
    )
    parent = DictionaryObject(
        {
            NameObject("/T"): TextStringObject("total"),
            NameObject("/Kids"): ArrayObject([writer._add_object(kid)]),
        }
    )
    form = DictionaryObject({NameObject("/Fields"): ArrayObject([writer._add_object(parent)])})
    writer._root_object[NameObject("/AcroForm")] = writer._add_object(form)


def triggers_and_open_action_share_a_script(writer: PdfWriter) -> None:
    # The same object read as the catalog's additional actions and as its open action.
    shared = writer._add_object(script())
    writer._root_object[NameObject("/AA")] = shared
    writer._root_object[NameObject("/OpenAction")] = shared


@pytest.mark.parametrize(
    ("change", "kinds"),
    [
        (deep_next_chain, ("javascript",)),
        (bookmark_script, ("javascript",)),
        (xfa_form, ("xfa",)),
        (field_kid_script, ("javascript",)),
        (triggers_and_open_action_share_a_script, ("javascript",)),
    ],
    ids=["next-chain-of-40", "bookmark", "xfa", "field-kid", "one-object-two-roles"],
)
def test_active_content_past_the_old_bounds_is_found(change: Change, kinds: tuple) -> None:
    assert active_content(rewritten(change)) == kinds


def test_a_script_behind_more_annotations_than_the_bound_is_never_none() -> None:
    kinds = active_content(rewritten(padded_annotations))
    assert kinds and "unknown" in kinds  # the bound was reached: it may hold more


def test_a_chain_longer_than_the_bound_is_unknown_and_a_long_one_within_is_followed() -> None:
    # 5,000 chained actions: far past Python's recursion, well within the bound.
    within = rewritten(
        lambda w: w._root_object.__setitem__(NameObject("/OpenAction"), chained(w, 5_000, script()))
    )
    assert active_content(within) == ("javascript",)
    past = rewritten(
        lambda w: w._root_object.__setitem__(
            NameObject("/OpenAction"), chained(w, MAX_LOOKS + 10, goto())
        )
    )
    assert active_content(past) == ("unknown",)


def test_a_cycle_ends_the_walk_and_holds_nothing() -> None:
    def cycle(writer: PdfWriter) -> None:
        first, second = goto(), goto()
        first_ref, second_ref = writer._add_object(first), writer._add_object(second)
        first[NameObject("/Next")] = second_ref
        second[NameObject("/Next")] = first_ref
        writer._root_object[NameObject("/OpenAction")] = first_ref

    assert active_content(rewritten(cycle)) == ()


def uri(w: PdfWriter) -> None:
    link_to = action("/URI", URI=TextStringObject("https://example.com/pay"))
    w.pages[0][NameObject("/Annots")] = ArrayObject([link(link_to)])


def submit_form(w: PdfWriter) -> None:
    send = action("/SubmitForm", F=TextStringObject("https://example.com/collect"))
    widget = link(send)
    widget[NameObject("/Subtype")] = NameObject("/Widget")
    form = DictionaryObject({NameObject("/Fields"): ArrayObject([w._add_object(widget)])})
    w._root_object[NameObject("/AcroForm")] = w._add_object(form)


def goto_remote(w: PdfWriter) -> None:
    w._root_object[NameObject("/OpenAction")] = action("/GoToR", F=TextStringObject("x.pdf"))


def import_data(w: PdfWriter) -> None:
    on_open = DictionaryObject({NameObject("/O"): action("/ImportData", F=TextStringObject("d"))})
    w.pages[0][NameObject("/AA")] = on_open


def goto_embedded(w: PdfWriter) -> None:
    w._root_object[NameObject("/AA")] = DictionaryObject({NameObject("/WC"): action("/GoToE")})


@pytest.mark.parametrize("change", [uri, submit_form, goto_remote, import_data, goto_embedded])
def test_actions_that_reach_outside_the_file_are_external(change: Change) -> None:
    assert active_content(rewritten(change)) == ("external",)


def test_a_plain_pdf_holds_none_and_one_pypdf_cannot_walk_is_unknown() -> None:
    assert active_content(PLAIN) == ()
    assert active_content(b"%PDF-1.7 not really") == ("unknown",)
