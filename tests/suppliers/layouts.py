"""A learned layout put straight into the registry's table, for tests of what a layout reads
(the learn step's own tests teach layouts through reviews)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from docflow.extract.base import PageInput
from docflow.extract.rules_engine.engine import layout_of
from docflow.extract.rules_engine.layout import Page, from_text
from docflow.pdf import open_pdf
from docflow.readers.textlayer import TextLayerReader
from docflow.settings import load_settings
from docflow.suppliers import fingerprint as fp
from docflow.suppliers import profile
from docflow.suppliers.layouts import Layout, LayoutStore
from docflow.suppliers.shapes import Profile, ProfileEntry

LAYOUT_ID = "L-00000000000a"


def trusted(entry: Mapping[str, Any] | None) -> ProfileEntry:
    """An entry two agreeing reviews confirmed, the second finding its shadow read right
    (the shipped rules' min_confirmations)."""
    assert entry is not None
    return cast("ProfileEntry", {**entry, "confirmed": 2, "graded": {"hits": 1, "misses": 0}})


def store() -> LayoutStore:
    return LayoutStore(load_settings().supplier_table)


def pdf_page(data: bytes) -> Page:
    """Page 1 of a PDF as the pipeline lays it out (its text layer's words and boxes)."""
    with open_pdf(data) as pdf:
        read = TextLayerReader().read(pdf, 1)
    return layout_of(PageInput(1, read.text, read.engine, read.confidence, words=read.words))


def put_layout(
    page: str | Page,
    issuer: str,
    fields: Mapping[str, ProfileEntry] | None = None,
    layout_id: str = LAYOUT_ID,
    supplier_id: str = "",
    doc_type: str = "invoice",
) -> Layout:
    """A layout taught on `page` (one page of text, or a PDF's page: `pdf_page`): its
    fingerprint, its issuer's name (trusted) and `fields`."""
    pages = [from_text(1, page) if isinstance(page, str) else page]
    named = profile.learn_entry(pages, "vendor_name", issuer)
    learned = Profile(
        fields={"vendor_name": trusted(named), **(fields or {})},
        fingerprint=fp.merged([], fp.lines_of(pages)),
        runs=[],
    )
    return store().change(
        layout_id,
        lambda _old: Layout(layout_id, learned, supplier_id=supplier_id, doc_type=doc_type),
    )


def learned(layout_id: str = LAYOUT_ID) -> Layout:
    found = store().get(layout_id)
    assert found is not None, layout_id
    return found
