"""Every file a PDF embeds, wherever it embeds it: what a hybrid invoice carries besides the
XML docflow reads.

`facturx.get_xml_from_pdf` and pypdf's `attachment_list` read the document's EmbeddedFiles
name tree (pypdf one level of `/Kids` deep) and return the first invoice XML they meet. A PDF
can carry more: a second invoice XML under another name or deeper in the tree, a file named
only in the catalog's associated files (`/AF`, PDF/A-3's way, which Factur-X uses) or a
page's, or one behind a file attachment annotation. Another program may read any of them and
pay what it says, so all are listed here, each once (two references to one embedded stream
are one file), with a bound on the walk: a listing that met its bound or a file it could not
read says so (`complete` False), and is never taken for "nothing more"."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field

from pypdf import PdfReader
from pypdf.errors import PyPdfError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, PdfObject

# How much of a PDF's object graph the walk reads: name-tree nodes, file specifications and
# annotations together. A Factur-X carries one file; the bound only stops a crafted tree.
MAX_LOOKS = 10_000
MAX_TREE_DEPTH = 32  # a balanced name tree of 10,000 files is 4 levels deep
# What reading a malformed object may raise (pypdf's own errors and Python's on odd types).
READ_ERRORS = (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError, IndexError)


@dataclass(frozen=True)
class Attachment:
    name: str  # the name tree's key, else the file specification's /UF or /F
    content: bytes


Seen = tuple[str, int, int] | int  # an object's reference, or the id of a direct object


@dataclass
class Listing:
    """The PDF's embedded files in the order met (the name tree first, as readers take it),
    how many parts of the walk could not be read (`unread`: a file's stream, the page tree, a
    name tree deeper than MAX_TREE_DEPTH) and whether it met its bound (`bounded`)."""

    files: list[Attachment] = field(default_factory=list)
    unread: int = 0
    bounded: bool = False
    seen: set[Seen] = field(default_factory=set, repr=False)
    looks: int = 0

    @property
    def complete(self) -> bool:
        """Every file the PDF embeds is in `files`."""
        return not (self.unread or self.bounded)

    def look(self) -> bool:
        """One more object read; False once the walk met its bound (it stops there)."""
        self.looks += 1
        self.bounded = self.bounded or self.looks > MAX_LOOKS
        return not self.bounded


def list_attachments(data: bytes) -> Listing:
    """Every embedded file of the PDF `data`. Raises one of READ_ERRORS when the PDF's
    catalog cannot be read at all (the caller treats it as a PDF without attachments)."""
    reader = PdfReader(io.BytesIO(data))
    root = reader.root_object
    listing = Listing()
    names = _dict(root.get("/Names"))
    if names is not None:
        _tree(listing, names.get("/EmbeddedFiles"), 0)
    for spec in _array(root.get("/AF")):
        _spec(listing, spec, None)
    try:
        pages = list(reader.pages)
    except READ_ERRORS:
        listing.unread += 1
        pages = []
    for page in pages:
        for spec in _array(page.get("/AF")):
            _spec(listing, spec, None)
        for annotation in _array(page.get("/Annots")):
            found = _dict(annotation)
            if found is not None and listing.look() and found.get("/Subtype") == "/FileAttachment":
                _spec(listing, found.get("/FS"), None)
    return listing


def _resolve(value: PdfObject | None) -> PdfObject | None:
    return value.get_object() if isinstance(value, IndirectObject) else value


def _dict(value: PdfObject | None) -> DictionaryObject | None:
    try:
        found = _resolve(value)
    except READ_ERRORS:
        return None
    return found if isinstance(found, DictionaryObject) else None


def _array(value: PdfObject | None) -> Iterator[PdfObject]:
    try:
        found = _resolve(value)
    except READ_ERRORS:
        return iter(())
    return iter(found) if isinstance(found, ArrayObject) else iter(())


def _tree(listing: Listing, node: PdfObject | None, depth: int) -> None:
    """A name tree node: its `/Names` pairs, then its `/Kids`, to MAX_TREE_DEPTH."""
    found = _dict(node)
    if found is None or not listing.look():
        return
    if depth > MAX_TREE_DEPTH:
        listing.unread += 1
        return
    if not _first_visit(listing, node, found):
        return  # a loop in the tree: this node's files are listed already
    pairs = list(_array(found.get("/Names")))
    for key, spec in zip(pairs[::2], pairs[1::2], strict=False):
        _spec(listing, spec, _text(key))
    for kid in _array(found.get("/Kids")):
        _tree(listing, kid, depth + 1)


def _first_visit(listing: Listing, ref: PdfObject | None, found: DictionaryObject) -> bool:
    key: Seen = (
        ("node", ref.idnum, ref.generation) if isinstance(ref, IndirectObject) else id(found)
    )
    if key in listing.seen:
        return False
    listing.seen.add(key)
    return True


def _spec(listing: Listing, value: PdfObject | None, key: str | None) -> None:
    """A file specification: its embedded stream (`/EF` `/UF` or `/F`), once per stream."""
    spec = _dict(value)
    if spec is None or not listing.look():
        return
    embedded = _dict(spec.get("/EF"))
    if embedded is None:
        return  # a reference to an external file: nothing embedded to read
    ref = embedded.get("/UF", embedded.get("/F"))
    stream = _resolve(ref) if ref is not None else None
    if stream is None:
        return
    seen: Seen = (
        ("file", ref.idnum, ref.generation) if isinstance(ref, IndirectObject) else id(stream)
    )
    if seen in listing.seen:
        return
    listing.seen.add(seen)
    try:
        content = stream.get_data()  # type: ignore[attr-defined]
    except Exception:  # an unknown filter raises NotImplementedError: any refusal is "unread"
        listing.unread += 1
        return
    name = key or _spec_name(spec)
    listing.files.append(Attachment(name, bytes(content)))


def _spec_name(spec: DictionaryObject) -> str:
    return next((n for entry in ("/UF", "/F") if (n := _text(spec.get(entry)))), "")


def _text(value: PdfObject | None) -> str | None:
    """A PDF string as text: a text string as it is, a byte string as Latin-1."""
    try:
        found = _resolve(value)
    except READ_ERRORS:
        return None
    if isinstance(found, bytes):
        return found.decode("latin-1")
    return str(found) if isinstance(found, str) else None
