"""Issue 59 item 3, pure: scans of a known layout that OCR set out otherwise than the scans
it was learned from (a stray mark or another column's cell on a label's row, one skewed line
split in two rows) match it, through the page's `pieces_of`; an issuer's two layouts (its
text pages' and its scans', taught under one registered supplier) are no look-alikes to tell
apart; and none of it lets a page find a line it does not print: another layout that prints
a registered supplier's name and a few of its generic lines, however OCR set them out, still
matches nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from docflow.extract.rules_engine.layout import Page, from_text, from_words
from docflow.readers.base import Word
from docflow.suppliers import fingerprint as fp
from docflow.suppliers.layouts import Layout
from docflow.suppliers.match import match_layout

HEIGHT = 0.015  # a word's height; words 0.008 apart, cells further
OCR = 84.0

# A row: its cells, each (x, text); dy moves the row (a skewed line's other half).
Row = list[tuple[float, str]]

LAYOUT: list[Row] = [
    [(0.08, "Kranich Druck GmbH")],
    [(0.08, "Hafenstrasse 3, 20457 Hamburg")],
    [(0.62, "RECHNUNG")],
    [(0.08, "Kundennummer 4711"), (0.62, "Belegkennung: E2026000000017")],
    [(0.62, "Rechnungsdatum: 04.03.2026")],
    [(0.62, "Lieferdatum: 02.03.2026")],
    [(0.08, "Rechnungsempfänger: Nordlicht Handel AG")],
    [(0.08, "Pos. Beschreibung Menge Einzelpreis")],
    [(0.55, "Gesamtbetrag: 1.190,00 EUR")],
    [(0.08, "Zahlbar innerhalb von 14 Tagen ohne Abzug.")],
    [(0.08, "Sparkasse Hamburg IBAN DE89 3704 0044 0532 0130 00")],
    [(0.08, "Geschäftsführer: Jan Kranich, Amtsgericht Hamburg")],
]


def scan(rows: list[Row], split: dict[int, float] | None = None) -> Page:
    """The rows as OCR words (a confidence each), one row per 0.05 of the page; `split`: row
    index -> x from which that row's words sit 0.6 of a word's height lower (a skewed line
    OCR reads as two rows)."""
    words = []
    for i, row in enumerate(rows):
        y = 0.05 + i * 0.05
        for x0, text in row:
            x = x0
            for token in text.split():
                dy = 0.6 * HEIGHT if split and i in split and x >= split[i] else 0.0
                width = 0.011 * len(token)
                words.append(Word(token, (x, y + dy, x + width, y + dy + HEIGHT), OCR))
                x += width + 0.008
    return from_words(1, words)


def learned() -> list[fp.Line]:
    """The fingerprint two reviewed scans of the layout left."""
    first = fp.lines_of([scan(LAYOUT)])
    return fp.merged(fp.merged([], first), fp.lines_of([scan(LAYOUT)]), scanned=True)


def found(fingerprint: list[fp.Line], page: Page, pieces: bool = True) -> float:
    lines = fp.lines_of([page])
    return fp.score(fingerprint, lines, True, fp.pieces_of([page]) if pieces else ())


def with_cells(rows: list[Row], extra: dict[int, tuple[float, str]]) -> list[Row]:
    return [sorted([*row, extra[i]]) if i in extra else row for i, row in enumerate(rows)]


def test_a_scan_whose_rows_gained_a_stray_mark_or_another_columns_cell_matches() -> None:
    """OCR read a table rule as `|` left of three labels, and set a left column's cell on a
    right column's label row: each row's first cell moved far from where the label printed."""
    fingerprint = learned()
    later = with_cells(
        LAYOUT,
        {
            2: (0.08, "Ihr Zeichen AB-7"),
            4: (0.30, "|"),
            5: (0.08, "Projekt Nord"),
            8: (0.08, "Übertrag 12"),
        },
    )
    page = scan(later)
    # Before: the rows compared whole, at their first cell, too few found.
    assert found(fingerprint, page, pieces=False) < fp.SCORE
    assert found(fingerprint, page) == 1.0
    assert fp.match([fingerprint], fp.lines_of([page]), True, fp.pieces_of([page])).winner == 0


def test_a_scan_whose_skewed_lines_were_split_in_two_rows_matches() -> None:
    fingerprint = learned()
    page = scan(LAYOUT, split={6: 0.29, 9: 0.3, 11: 0.3})
    assert found(fingerprint, page, pieces=False) < fp.SCORE
    assert found(fingerprint, page) >= fp.SCORE


def test_pieces_are_a_scans_own_words_in_their_order() -> None:
    page = scan(with_cells(LAYOUT, {4: (0.30, "|")}), split={9: 0.3})
    texts = {str(p[0]) for p in fp.pieces_of([page])}
    assert "rechnungsdatum: #" in texts  # the label without the mark before it
    assert "zahlbar innerhalb von # tagen ohne abzug." in texts  # the split line joined
    # Nothing is made up: every piece's words are the page's, in the page's order.
    words = " ".join(str(line[0]) for line in fp.lines_of([page])).split()
    for text in texts:
        tokens = text.split()
        assert any(words[i : i + len(tokens)] == tokens for i in range(len(words))), text
    # A text layer's page has none to compare with: its lines are its text's own.
    assert fp.score(learned(), fp.lines_of([scan(LAYOUT)]), False, fp.pieces_of([page])) == 1.0


def _layout(layout_id: str, fingerprint: list[fp.Line], issuer: str, supplier: str) -> Layout:
    name = {"value": issuer, "shape": "party", "label": "", "page": 1, "region": [0, 0, 1, 1]}
    return Layout(
        layout_id, {"fingerprint": fingerprint, "fields": {"vendor_name": name}}, 0, supplier
    )


TEXT = "\n".join(" ".join(text for _x, text in row) for row in LAYOUT)


def test_an_issuers_text_and_scan_layouts_are_not_look_alikes_to_tell_apart() -> None:
    """Both layouts of one registered supplier match the page (the scans' prints one line
    fewer, nothing tells them apart): the better is read, where before neither was. Another
    supplier's layout, an unregistered one, or another issuer's stays a look-alike."""
    page = from_text(1, TEXT)
    text_print = fp.merged([], fp.lines_of([page]))
    scan_print = [*text_print, ["erstellt mit fakturapro #", 0.0, 0.95]]
    issuer = "Kranich Druck GmbH"
    both = [
        _layout("L-00000000000t", text_print, issuer, "kranich"),
        _layout("L-00000000000s", scan_print, issuer, "kranich"),
    ]
    found = match_layout(both, [page])
    assert found.layout is not None and found.layout.layout_id == "L-00000000000t"
    assert found.score == 1.0
    # The verdict without the issuer's keys, as before: ambiguous.
    assert fp.match([text_print, scan_print], fp.lines_of([page])).ambiguous
    for other in (
        _layout("L-00000000000s", scan_print, issuer, "reiher"),
        _layout("L-00000000000s", scan_print, issuer, ""),
        _layout("L-00000000000s", scan_print, "Kranich Medien KG", "kranich"),
    ):
        pair = [both[0], other]
        verdict = match_layout(pair, [page], linked_to="kranich")
        assert verdict.layout is None and verdict.ambiguous, other
    unregistered = [_layout(lay.layout_id, lay.fingerprint, issuer, "") for lay in both]
    assert match_layout(unregistered, [page]).ambiguous
    # Nor are two layouts of no confirmed issuer, named by the supplier's checked id alone.
    unnamed = [_layout(lay.layout_id, lay.fingerprint, "", "kranich") for lay in both]
    assert match_layout(unnamed, [page], linked_to="kranich").ambiguous


# Another layout's lines: what a forged page prints besides the ones it copies.
OTHER = [
    "Invoice to Harbour Lights Ltd",
    "Order reference PO-2231",
    "Thank you for your business",
    "Terms: net thirty days",
    "Questions? billing@example.org",
    "Delivered by parcel service",
]


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    copied=st.sets(st.integers(min_value=1, max_value=len(LAYOUT) - 1), max_size=7),
)
def test_a_forged_scan_finds_only_the_lines_it_prints(
    data: st.DataObject, copied: set[int]
) -> None:
    """Another layout printing a registered supplier's name (its first line) and a few of
    its lines, each where the supplier prints it, the rest its own, with OCR's marks, other
    columns' cells and split rows anywhere: the fingerprint's lines found are the ones it
    prints, so fewer than SCORE of them never match."""
    fingerprint = learned()
    # The fingerprint's lines tell apart from one another and from the other layout's.
    texts = [str(line[0]) for line in fingerprint]
    other = [line for row in OTHER for line in fp.lines_of([from_text(1, row)])]
    for i, a in enumerate(texts):
        rivals = texts[:i] + texts[i + 1 :] + [str(o[0]) for o in other]
        assert all(fuzz.ratio(a, b) < fp.SCAN_LINE_SCORE for b in rivals), a
    printed = {0, *copied}
    rows: list[Row] = [
        LAYOUT[i] if i in printed else [(0.08, OTHER[i % len(OTHER)])] for i in range(len(LAYOUT))
    ]
    marks = data.draw(
        st.dictionaries(
            st.integers(min_value=0, max_value=len(LAYOUT) - 1),
            st.tuples(st.sampled_from([0.3, 0.45, 0.9]), st.sampled_from(["|", "‘", "Übertrag 9"])),
        )
    )
    rows = with_cells(rows, marks)
    split = data.draw(
        st.dictionaries(
            st.integers(min_value=0, max_value=len(LAYOUT) - 1), st.sampled_from([0.2, 0.4])
        )
    )
    page = scan(rows, split)
    lines, pieces = fp.lines_of([page]), fp.pieces_of([page])
    how = fp.reading(fingerprint, lines, True, pieces)
    hits = {str(line[0]) for line in fingerprint if fp._found(line, [*lines, *pieces], how)}
    mine = {str(line[0]) for i in printed for line in fp.lines_of([scan([LAYOUT[i]])])}
    assert hits <= mine
    if len(printed) < fp.SCORE * len(fingerprint):
        assert fp.score(fingerprint, lines, True, pieces) < fp.SCORE
        assert fp.match([fingerprint], lines, True, pieces).winner is None
