"""Printing a new value where an old one was: the closest font, the place, the room, and
the page edit (the old characters redacted, text only; the new ones written)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf

from _extraction.page_text import Edit, Line, Skip, spaced

SYSTEM_FONTS = Path("/usr/share/fonts/truetype")
# (words in the printed font's name, a free font of its kind: regular, bold); first match.
FAMILIES: list[tuple[tuple[str, ...], str, str]] = [
    (("dejavu", "serif"), "dejavu/DejaVuSerif.ttf", "dejavu/DejaVuSerif-Bold.ttf"),
    (("dejavu",), "dejavu/DejaVuSans.ttf", "dejavu/DejaVuSans-Bold.ttf"),
    (("verdana",), "dejavu/DejaVuSans.ttf", "dejavu/DejaVuSans-Bold.ttf"),
    (("courier",), "liberation/LiberationMono-Regular.ttf", "liberation/LiberationMono-Bold.ttf"),
    (("mono",), "liberation/LiberationMono-Regular.ttf", "liberation/LiberationMono-Bold.ttf"),
    (("times",), "liberation/LiberationSerif-Regular.ttf", "liberation/LiberationSerif-Bold.ttf"),
    (("serif",), "liberation/LiberationSerif-Regular.ttf", "liberation/LiberationSerif-Bold.ttf"),
    ((), "liberation/LiberationSans-Regular.ttf", "liberation/LiberationSans-Bold.ttf"),
]
BASE14 = {"serif": ("tiro", "tibo"), "mono": ("cour", "cobo"), "sans": ("helv", "hebo")}


@dataclass
class Face:
    """A font to print a value in: its name on the page, its metrics, where it comes from."""

    alias: str
    font: pymupdf.Font
    own: int = 0  # the printed font's own xref: its codes written as the page writes them
    cid: bool = False  # a Type0 font with Identity-H codes (glyph ids), else one byte codes
    buffer: bytes | None = None  # a copy of an embedded font
    file: str | None = None  # a free font of the same kind
    base14: str | None = None
    like: int = 0  # the printed font's xref, whose ascent and descent a free font is given


class Fonts:
    """The closest font for a value. First the printed font itself, written with its own
    codes, when its embedded program has every glyph and its codes can be told (glyph ids
    of an Identity-H font; WinAnsi bytes of a simple TrueType font): the same look, the same
    character boxes and the same text layer as the page's own values. Else a free font of
    the same kind (DejaVu, Liberation), else the PDF base-14 font of the same kind.
    `own=False`: never the printed font (when the text layer of it reads wrong)."""

    def __init__(self, doc: pymupdf.Document, own: bool = True) -> None:
        self.embedded: dict[str, tuple[int, bytes, bool, bool]] = {}  # xref, program, cid, own
        self.xrefs: dict[str, int] = {}
        for number in range(len(doc)):
            for xref, _ext, kind, basename, _ref, encoding, *_ in doc[number].get_fonts(full=True):
                name = basename.split("+", 1)[-1]
                if name in self.xrefs:
                    continue
                self.xrefs[name] = xref
                buffer = doc.extract_font(xref)[3]
                if buffer:
                    cid = kind == "Type0" and encoding == "Identity-H" and _identity(doc, xref)
                    simple = kind == "TrueType" and encoding in ("WinAnsiEncoding", "")
                    self.embedded[name] = (xref, buffer, cid, own and (cid or simple))
        self.faces: dict[tuple[str, bool, str], Face] = {}
        self.loaded: dict[str, pymupdf.Font] = {}

    def _font(self, key: str, **source: Any) -> pymupdf.Font:
        if key not in self.loaded:
            self.loaded[key] = pymupdf.Font(**source)
        return self.loaded[key]

    def face(self, span: dict[str, Any], text: str) -> Face:
        name = str(span["font"]).split("+", 1)[-1]
        lower = name.lower()
        bold = bool(span["flags"] & 16) or "bold" in lower or "black" in lower
        key = (name, bold, text)
        if key not in self.faces:
            self.faces[key] = self._choose(name, lower, bold, text)
        return self.faces[key]

    def _choose(self, name: str, lower: str, bold: bool, text: str) -> Face:
        shown = [c for c in text if c.strip()]
        if name in self.embedded:
            xref, buffer, cid, own = self.embedded[name]
            font = self._font(f"embedded:{name}", fontbuffer=buffer)
            if all(font.has_glyph(ord(c)) for c in shown):
                alias = f"V{hashlib.sha256(name.encode()).hexdigest()[:6]}"
                if own and (cid or _winansi(text)):
                    return Face(alias, font, own=xref, cid=cid)
                return Face(alias, font, buffer=buffer, like=xref)
        for words, regular, heavy in FAMILIES:
            path = SYSTEM_FONTS / (heavy if bold else regular)
            if all(w in lower for w in words) and path.is_file():
                font = self._font(str(path), fontfile=str(path))
                if all(font.has_glyph(ord(c)) for c in shown):
                    like = self.xrefs.get(name, 0)
                    alias = f"F{path.stem.replace('-', '')}{like}"
                    return Face(alias, font, file=str(path), like=like)
        if any(ord(c) > 255 for c in shown):
            raise Skip(f"no font prints {text!r} like {name}")
        kind = "mono" if "mono" in lower or "courier" in lower else "sans"
        kind = "serif" if "times" in lower or ("serif" in lower and "sans" not in lower) else kind
        base = BASE14[kind][bold]
        return Face(base, pymupdf.Font(base), base14=base)


def _identity(doc: pymupdf.Document, xref: int) -> bool:
    """Whether the Type0 font's codes are its glyph ids (CIDToGIDMap /Identity)."""
    kind, value = doc.xref_get_key(xref, "DescendantFonts")
    ref = value.strip("[] ").split(" ")[0] if kind in ("array", "xref") else ""
    if not ref.isdigit():
        return False
    return doc.xref_get_key(int(ref), "CIDToGIDMap") == ("name", "/Identity")


def _winansi(text: str) -> bool:
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def placed(edit: Edit, fonts: Fonts) -> tuple[pymupdf.Rect, float, float, Face, float, float]:
    """Where the new text goes: its box, the baseline's x and y, the face and size, and the
    horizontal squeeze."""
    first = edit.line.chars[edit.start]
    face, size = fonts.face(first.span, spaced(edit.new)), float(first.span["size"])
    width = face.font.text_length(spaced(edit.new), fontsize=size)
    # A fallback font may run wider than the printed one: a value printed as wide as the
    # old one's characters were is narrowed to that width (never below 85%), not made
    # smaller.
    target = edit.rect.width * len(edit.new) / max(len(edit.old), 1)
    squeeze = min(1.0, max(0.85, target / width)) if width else 1.0
    width *= squeeze
    x = edit.rect.x1 - width if edit.right else edit.rect.x0
    box = pymupdf.Rect(x, edit.rect.y0, x + width, edit.rect.y1)
    return box, x, first.origin[1], face, size, squeeze


def room(
    edits: list[Edit], lines: dict[int, list[Line]], pages: dict[int, pymupdf.Rect], fonts: Fonts
) -> str | None:
    """None if every new text is inside its page and clear of every character that stays;
    else the first that is not, and what it runs into."""
    changed = {(id(e.line), i) for e in edits for i in range(e.start, e.end)}
    for edit in edits:
        box = placed(edit, fonts)[0]
        if not pages[edit.line.page].contains(box):
            return f"{edit.new!r} off the page"
        inner = pymupdf.Rect(
            box.x0 + 0.5, box.y0 + box.height * 0.3, box.x1 - 0.5, box.y1 - box.height * 0.3
        )
        for line in lines[edit.line.page]:
            for i, c in enumerate(line.chars):
                if c.c.strip() and (id(line), i) not in changed and inner.intersects(c.bbox):
                    return f"{edit.new!r} into {line.text[max(0, i - 8) : i + 8]!r}"
    return None


def apply(doc: pymupdf.Document, edits: list[Edit], fonts: Fonts) -> None:
    by_page: dict[int, list[Edit]] = {}
    for e in edits:
        by_page.setdefault(e.line.page, []).append(e)
    for number, page_edits in by_page.items():
        page = doc[number]
        placed_ = [placed(e, fonts) for e in page_edits]
        for e in page_edits:
            r = e.rect
            page.add_redact_annot(
                pymupdf.Rect(r.x0 + 0.3, r.y0 + r.height * 0.3, r.x1 - 0.3, r.y1 - r.height * 0.3),
                fill=False,
            )
        page.apply_redactions(
            images=pymupdf.PDF_REDACT_IMAGE_NONE, graphics=pymupdf.PDF_REDACT_LINE_ART_NONE
        )
        inserted: set[str] = set()
        page.wrap_contents()
        for e, (_box, x, y, face, size, squeeze) in zip(page_edits, placed_, strict=True):
            rgb = e.line.chars[e.start].span["color"]
            color = ((rgb >> 16 & 255) / 255, (rgb >> 8 & 255) / 255, (rgb & 255) / 255)
            if face.own:
                _write_own(doc, page, face, spaced(e.new), (x, y, size, squeeze), color)
                continue
            at = x  # the runs advance unsqueezed; the squeeze pivots on the value's start
            for text, simple in _runs(spaced(e.new)):
                alias = face.base14 or f"{face.alias}{'S' if simple else 'U'}"
                if not face.base14 and alias not in inserted:
                    inserted.add(alias)
                    made = page.insert_font(
                        fontname=alias,
                        fontbuffer=face.buffer,
                        fontfile=face.file,
                        set_simple=simple,
                    )
                    _same_height(doc, made, face.like)
                page.insert_text(
                    (at, y),
                    text,
                    fontname=alias,
                    fontsize=size,
                    color=color,
                    morph=(pymupdf.Point(x, y), pymupdf.Matrix(squeeze, 1)),
                )
                at += face.font.text_length(text, fontsize=size)
    for name in doc.embfile_names():
        doc.embfile_del(name)
    doc.del_xml_metadata()
    doc.set_metadata({})


def _descriptor(doc: pymupdf.Document, font: int) -> int:
    kind, value = doc.xref_get_key(font, "DescendantFonts")
    if kind in ("array", "xref") and value.strip("[] ").split(" ")[0].isdigit():
        font = int(value.strip("[] ").split(" ")[0])
    kind, value = doc.xref_get_key(font, "FontDescriptor")
    return int(value.split()[0]) if kind == "xref" else 0


def _same_height(doc: pymupdf.Document, made: int, like: int) -> None:
    """The free font given the printed font's ascent and descent: a reader's character
    boxes (PDFium's loose boxes) are as tall as the page's own, so the new value lines up
    and splits into cells as the old one did."""
    source, target = _descriptor(doc, like) if like else 0, _descriptor(doc, made)
    if not (source and target):
        return
    for key in ("Ascent", "Descent"):
        kind, value = doc.xref_get_key(source, key)
        if kind != "null":
            doc.xref_set_key(target, key, value)


def _write_own(
    doc: pymupdf.Document,
    page: pymupdf.Page,
    face: Face,
    text: str,
    at: tuple[float, float, float, float],
    color: tuple[float, float, float],
) -> None:
    """The text in the printed font's own resource and codes, appended to the page."""
    x, y, size, squeeze = at
    name = _font_resource(doc, page, face.own)
    point = pymupdf.Point(x, y) * ~page.transformation_matrix
    if face.cid:
        codes = "".join(f"{face.font.has_glyph(ord(c)):04x}" for c in text)
    else:
        codes = text.encode("cp1252").hex()
    r, g, b = color
    stream = (
        f"q BT /{name} {size:.3f} Tf {r:.3f} {g:.3f} {b:.3f} rg 0 Tc 0 Tw 0 Tr 0 Ts "
        f"{squeeze * 100:.2f} Tz 1 0 0 1 {point.x:.3f} {point.y:.3f} Tm <{codes}> Tj ET Q\n"
    )
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, stream.encode("ascii"))
    kind, contents = doc.xref_get_key(page.xref, "Contents")
    listed = contents.strip("[]") if kind == "array" else contents
    doc.xref_set_key(page.xref, "Contents", f"[{listed} {xref} 0 R]")


def _font_resource(doc: pymupdf.Document, page: pymupdf.Page, font: int) -> str:
    """A name for the font in the page's resources (added beside the page's own names)."""
    name = f"Vf{font}"
    kind, value = doc.xref_get_key(page.xref, "Resources")
    if kind == "xref":
        owner, path = int(value.split()[0]), "Font"
    elif kind == "dict":
        owner, path = page.xref, "Resources/Font"
    else:
        raise Skip("a page whose fonts are inherited")
    kind, value = doc.xref_get_key(owner, path)
    if kind == "xref":
        doc.xref_set_key(int(value.split()[0]), name, f"{font} 0 R")
    else:
        doc.xref_set_key(owner, f"{path}/{name}", f"{font} 0 R")
    return name


def _runs(text: str) -> list[tuple[str, bool]]:
    """The text in runs a simple (Latin-1) font prints, and runs it cannot (`€`). A simple
    font is what keeps the text layer right: a CID font's ToUnicode maps a glyph shared by
    two characters to one of them (`-` read back as a soft hyphen, a space as a no-break
    space); the `€` it alone can print shares no glyph."""
    runs: list[tuple[str, bool]] = []
    for c in text:
        simple = ord(c) < 256
        if runs and runs[-1][1] == simple:
            runs[-1] = (runs[-1][0] + c, simple)
        else:
            runs.append((c, simple))
    return runs
