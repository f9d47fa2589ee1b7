"""Active content (issue 43, item 5): a PDF holding JavaScript or a launch action is flagged
`active-content` at split, and `docflow show --json` and the review page say so, the page by
its download of the original. A flag, not a failure: the document goes its usual way."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

from docflow.cli.queries import cmd_show
from docflow.pdf_actions import active_content
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.review_desk import Desk, call, open_desk


def rewritten(data: bytes, change: object) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    change(writer)  # type: ignore[operator]
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def action(kind: str, **more: object) -> DictionaryObject:
    found = DictionaryObject({NameObject("/S"): NameObject(kind)})
    for key, value in more.items():
        found[NameObject(f"/{key}")] = value
    return found


def open_action_js(writer: PdfWriter) -> None:
    script = action("/JavaScript", JS=TextStringObject("app.alert('hello');"))
    writer._root_object[NameObject("/OpenAction")] = script


def launch_link(writer: PdfWriter) -> None:
    link = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Link"),
            NameObject("/Rect"): ArrayObject([NumberObject(n) for n in (72, 72, 200, 100)]),
            NameObject("/A"): action("/Launch", F=TextStringObject("calc.exe")),
        }
    )
    writer.pages[0][NameObject("/Annots")] = ArrayObject([writer._add_object(link)])


def names_tree_js(writer: PdfWriter) -> None:
    script = writer._add_object(action("/JavaScript", JS=TextStringObject("this.print();")))
    tree = DictionaryObject({NameObject("/Names"): ArrayObject([TextStringObject("s"), script])})
    names = DictionaryObject({NameObject("/JavaScript"): writer._add_object(tree)})
    writer._root_object[NameObject("/Names")] = writer._add_object(names)


CONTRACT = pdfs.text_pdf(pdfs.CONTRACT_WITH_CARD)


@pytest.mark.parametrize(
    ("change", "kinds"),
    [
        (open_action_js, ("javascript",)),
        (launch_link, ("launch",)),
        (names_tree_js, ("javascript",)),
    ],
)
def test_active_content_is_found_where_a_viewer_runs_it(change: object, kinds: tuple) -> None:
    assert active_content(rewritten(CONTRACT, change)) == kinds


def test_a_plain_pdf_holds_none_and_garbage_could_not_be_checked() -> None:
    assert active_content(CONTRACT) == ()
    # Not walked, so not "none" (tests/pdf/test_active_content_walk.py).
    assert active_content(b"%PDF-1.7 not really") == ("unknown",)


def test_an_open_action_script_is_flagged_in_show_and_on_the_review_page(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_desk(stack, Desk) as desk:
        doc = stack.upload("in/scripted.pdf", rewritten(CONTRACT, open_action_js))
        desk.start(doc)
        token = desk.links(doc)[0]  # a contract: it waits at legal as any would
        page = call("GET", f"/review/{token}")["body"]
    assert 'id="active-content"' in page and "the PDF holds javascript" in page
    download = page.split('class="download"', 1)[1]
    assert "The original holds active content (javascript)" in download

    capsys.readouterr()
    args = argparse.Namespace(document=doc.document_id, json=True, state=str(tmp_path))
    assert cmd_show(args) == 0
    # The answer is the indented JSON `show` prints; a runner thread still shutting down may
    # log a line of its own around it.
    out = capsys.readouterr().out
    state = json.JSONDecoder().raw_decode(out[out.index("{\n") :])[0]["state"]
    assert state["activeContent"] == ["javascript"]
    assert state["status"] == "pending-review" and state["stageName"] == "legal"
