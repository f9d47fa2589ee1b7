"""The walk over a PDF's actions that finds its active content (the kinds, and where it
looks: docflow/active_content.py). Apart from the kinds so that what only says them (`docflow
show`, the review page) does not import pypdf."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject

from docflow.active_content import EXTERNAL, JAVASCRIPT, LAUNCH, UNKNOWN, XFA

ACTIONS = {
    "/JavaScript": JAVASCRIPT,
    "/Launch": LAUNCH,
    "/SubmitForm": EXTERNAL,
    "/URI": EXTERNAL,
    "/GoToR": EXTERNAL,
    "/GoToE": EXTERNAL,
    "/ImportData": EXTERNAL,
}
# The walk's bounds: a crafted file with a million annotations, bookmarks or chained actions
# costs at most MAX_LOOKS objects looked at; nesting (a bookmark's children, a field's kids)
# deeper than MAX_DEPTH is not followed. Either reached with more to see: `unknown`.
MAX_LOOKS = 20_000
MAX_DEPTH = 64


@dataclass
class _Walk:
    """Objects still to look at, as (what it is, the object, its depth), and what was found."""

    found: set[str] = field(default_factory=set)
    todo: list[tuple[str, object, int]] = field(default_factory=list)
    seen: set[tuple[str, int, int]] = field(default_factory=set)
    looks: int = 0

    def add(self, what: str, raw: object, depth: int) -> None:
        if raw is not None:
            self.todo.append((what, raw, depth))

    def run(self) -> None:
        """Look at everything added, and all it leads to, until done or out of looks."""
        while self.todo:
            if self.looks >= MAX_LOOKS:
                self.found.add(UNKNOWN)
                self.todo.clear()
                return
            what, raw, depth = self.todo.pop()
            if depth > MAX_DEPTH:
                self.found.add(UNKNOWN)
                continue
            ref = getattr(raw, "idnum", None)
            if ref is not None:
                # Seen in this role: one object put where two roles read it (the catalog's
                # /AA pointing at the script /OpenAction runs) is looked at as each.
                key = (what, int(ref), int(getattr(raw, "generation", 0)))
                if key in self.seen:
                    continue
                self.seen.add(key)
            self.looks += 1
            obj = _resolved(raw)
            if what == "action":
                self._action(obj, depth)
            elif what == "triggers":  # an additional-actions dictionary: one per trigger
                for value in _dict(obj).values():
                    self.add("action", value, depth + 1)
            elif what == "outline":  # a bookmark: its action, its first child, its sibling
                item = _dict(obj)
                self.add("action", item.get("/A"), depth + 1)
                self.add("outline", item.get("/First"), depth + 1)
                self.add("outline", item.get("/Next"), depth)
            else:  # a page, an annotation or a form field: its actions, a field's kids
                holder = _dict(obj)
                self.add("action", holder.get("/A"), depth + 1)
                self.add("triggers", holder.get("/AA"), depth + 1)
                if what == "field":
                    for kid in _array(holder.get("/Kids")):
                        self.add("field", kid, depth + 1)

    def _action(self, obj: object, depth: int) -> None:
        if isinstance(obj, ArrayObject):  # `/Next` may be an array of actions
            for item in obj:
                self.add("action", item, depth)
        elif isinstance(obj, DictionaryObject):
            kind = ACTIONS.get(str(obj.get("/S", "")))
            if kind:
                self.found.add(kind)
            if "/JS" in obj:
                self.found.add(JAVASCRIPT)
            # A chain is followed at its own depth: only nesting is bounded by depth.
            self.add("action", obj.get("/Next"), depth)


def _resolved(raw: object) -> object:
    return raw.get_object() if hasattr(raw, "get_object") else raw


def _dict(raw: object) -> DictionaryObject:
    obj = _resolved(raw)
    return obj if isinstance(obj, DictionaryObject) else DictionaryObject()


def _array(raw: object) -> ArrayObject:
    obj = _resolved(raw)
    return obj if isinstance(obj, ArrayObject) else ArrayObject()


def _walk(data: bytes, walk: _Walk) -> None:
    reader = PdfReader(io.BytesIO(data), strict=False)
    root = _dict(reader.trailer["/Root"])
    if "/JavaScript" in _dict(root.get("/Names")):
        walk.found.add(JAVASCRIPT)
    form = _dict(root.get("/AcroForm"))
    if "/XFA" in form:
        walk.found.add(XFA)
    walk.add("action", root.get("/OpenAction"), 0)
    walk.add("triggers", root.get("/AA"), 0)
    walk.add("outline", _dict(root.get("/Outlines")).get("/First"), 0)
    for item in _array(form.get("/Fields")):
        walk.add("field", item, 0)
    walk.run()
    for page in reader.pages:
        if UNKNOWN in walk.found:
            return
        walk.add("page", page, 0)
        walk.run()
        for annotation in _array(page.get("/Annots")):
            walk.add("annotation", annotation, 0)
            walk.run()
            if UNKNOWN in walk.found:
                return


def active_content(data: bytes) -> tuple[str, ...]:
    """The kinds of active content a PDF holds (module docstring), sorted; () only when the
    walk looked everywhere and found none. A file pypdf cannot walk (PDFium already accepted
    it) is `unknown`, with what was found before it stopped."""
    walk = _Walk()
    try:
        _walk(data, walk)
    except Exception:  # a malformed corner pypdf cannot read: not looked at, so not "none"
        walk.found.add(UNKNOWN)
    return tuple(sorted(walk.found))
