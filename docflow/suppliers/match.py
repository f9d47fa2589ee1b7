"""Which registered supplier issued this document, and which learned layout it is.

    1. a checked tax id printed on the page that a supplier claims (outside the customer's
       block: the customer's VAT number identifies the customer)     -> by "<kind>"
    2. a checked IBAN (printed in any form, or a national account that is one) that a
       supplier claims and that is not a customer's (a debit mandate, the reader's own
       account, the customer's block)                                -> by "iban"
    3. the layout the page is (`match_layout`), when a checked id or IBAN named a registered
       supplier as it was taught (the layout's `supplierId`), the page also printing that
       supplier's name (name_agrees)                                 -> by "fingerprint"
    4. the printed vendor name against every name and alias (rapidfuzz token-sort ratio at
       least NAME_SCORE, as folded or as confusables skeletons: `name_score`) -> by "name"

1 to 3 are certain for reading; only the registry's ids make a supplier certain for paying:
the bank-details check compares the payee IBAN with the registered ones whatever matched. A
match by name alone is shown but makes nothing confident. `evidence` says which of the ids,
IBAN, name and fingerprint point to the matched supplier.

`match_layout` is reading's own question, asked whether or not any supplier is registered:
the learned layout (`layouts.py`) whose issuer the page prints outside the customer's block
and whose fingerprint it matches, told apart from look-alikes by their own lines
(`fingerprint.match`), or `ambiguous` (no layout is read), or none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from rapidfuzz import fuzz

from docflow import names as look
from docflow.extract.declarations.parse import fold
from docflow.extract.rules_engine.layout import Cell, Page, below, right_of
from docflow.extract.rules_engine.matching import is_customer_label
from docflow.extract.rules_engine.vendor import LEGAL_FORM, customer_cells
from docflow.suppliers import fingerprint as fingerprints
from docflow.suppliers.ids import FoundId, find_tax_ids, label_only
from docflow.suppliers.layouts import Layout, LayoutStore
from docflow.suppliers.model import Supplier
from docflow.suppliers.ownership import IbanFinding
from docflow.suppliers.profile import read_constant
from docflow.suppliers.store import SupplierStore

NAME_SCORE = 90.0


@dataclass(frozen=True)
class Match:
    supplier: Supplier
    by: str  # a tax id kind, "iban", "fingerprint" or "name"
    key: str  # the matched `kind:value` (masked for an IBAN by the caller), or the name
    score: float = 100.0
    ambiguous: bool = False  # (no match) two look-alike layouts the page did not tell apart

    @property
    def certain(self) -> bool:
        return self.by != "name"


# A word naming the customer right before an id in its cell: `TVA client FR19...`, `Customer
# VAT ID`, `USt-IdNr. des Kunden`. Such an id identifies the customer, never the issuer.
_CUSTOMERS = re.compile(
    r"\b(?:client|customer|buyer|acheteur|cliente|kunden?|klant|kaufer|kaeufer|comprador"
    r"|acquirente|cessionario|committente|destinatario|adquirente)\b",
    re.IGNORECASE,
)


def issuer_tax_ids(layouts: Sequence[Page]) -> list[FoundId]:
    """Tax ids printed outside the customer's block and not named the customer's in their
    own cell, in page order (checked or not)."""
    out: list[FoundId] = []
    for page in layouts:
        customer = customer_cells(page)
        for cell in page.cells():
            if id(cell) in customer or _opens_customer_line(page, cell):
                continue
            # The words before each id: in its cell since the id before it, and for the
            # first, the label cell to its left (`N° TVA client` | `FR19787878784`).
            left = [c for c in page.lines[cell.line] if c.x1 <= cell.x0 + 1e-6]
            before = max(left, key=lambda c: c.x1).text + " " if left else ""
            start = 0
            for found in sorted(find_tax_ids(cell.text), key=lambda f: f.start):
                if not _CUSTOMERS.search(fold(before + cell.text[start : found.start])):
                    out.append(found)
                before, start = "", found.end
            if label_only(cell.text) and not _CUSTOMERS.search(fold(cell.text)):
                out.extend(_beside_label(page, cell, customer))
    return out


def _opens_customer_line(page: Page, cell: Cell) -> bool:
    """The next cell on the line is a customer's label: the id is the first of the customer's
    fields on that line (`CUIT: 30500017704 | Apellido y Nombre / Razón Social: ...`)."""
    right = right_of(page, cell)
    return right is not None and is_customer_label(right.text)


def _beside_label(page: Page, label: Cell, customer: set[int]) -> list[FoundId]:
    """The id a label-only cell names, read from the cell to its right or the first cell
    under it (a form's box: label at the top, value beneath), outside the customer's block."""
    for other in [right_of(page, label), *(c for _d, c in below(page, label, max_lines=1))]:
        if other is None or id(other) in customer or _opens_customer_line(page, other):
            continue
        joined = f"{label.text} {other.text}"
        found = [f for f in find_tax_ids(joined) if f.start > len(label.text)]
        if found:
            return found[:1]
    return []


def _name_key(name: str) -> str:
    return " ".join(fold(LEGAL_FORM.sub(" ", name)).split())


@dataclass(frozen=True)
class NameKeys:
    """What a name is compared by. `plain`: folded, legal forms removed (`Blauwal GmbH` is
    `blauwal`). `looks`: its confusables skeletons (TR39, `docflow.names.skeleton`), as printed
    and in capitals (the skeleton keeps case, and a name in capitals is the same name), legal
    forms and their look-alikes in other scripts removed, folded: `BIauwaI` and `Вlauwal` are
    `blauwal` there. `whole`: the same with the legal forms kept, equal only for look-alikes of
    one name (an ASCII look-alike of a legal form, `GrnbH`, is no legal form to remove)."""

    plain: str
    looks: tuple[str, str]
    whole: tuple[str, str]


def _skeleton_key(text: str) -> str:
    return " ".join(fold(look.skeleton(text)).split())


@lru_cache(maxsize=8192)
def name_keys(name: str) -> NameKeys:
    seen = look.strip_format(name)
    bare = LEGAL_FORM.sub(" ", look.ascii_twins(seen))
    return NameKeys(
        _name_key(name),
        (_skeleton_key(bare), _skeleton_key(bare.upper())),
        (_skeleton_key(seen), _skeleton_key(seen.upper())),
    )


def name_score(printed: NameKeys, registered: NameKeys) -> float:
    """How alike two names are, 0..100: the best of their folded forms' and their skeletons'
    token-sort ratios (keys under three characters compare nothing), 100 for look-alikes of
    one whole name."""
    if any(a == b and len(a) >= 3 for a, b in zip(printed.whole, registered.whole, strict=True)):
        return 100.0
    scores = [0.0]
    if len(printed.plain) >= 3:
        scores.append(fuzz.token_sort_ratio(printed.plain, registered.plain))
    scores += [
        fuzz.token_sort_ratio(a, b)
        for a, b in zip(printed.looks, registered.looks, strict=True)
        if len(a) >= 3 and len(b) >= 3
    ]
    return max(scores)


def _mine(iban: IbanFinding) -> bool:
    """An account that may name its supplier: valid, an IBAN's (or one that is an IBAN's),
    and neither a mandate's, the reader's nor in the customer's block."""
    return iban.registry_iban is not None and iban.payee and iban.why != "customer-block"


@dataclass(frozen=True)
class LayoutMatch:
    """`layout`: the learned layout the page is, with its fingerprint `score`; `ambiguous`:
    two or more look-alikes the page's own lines did not tell apart (none is read)."""

    layout: Layout | None = None
    score: float = 0.0
    ambiguous: bool = False


def match_layout(
    layouts: Sequence[Layout], pages: Sequence[Page], linked_to: str | None = None
) -> LayoutMatch:
    """The layout whose issuer the page prints and whose fingerprint it matches. A layout is
    every customer's of one invoicing software, so the page must name its issuer first (or,
    `linked_to`, carry a checked id or IBAN of the registered supplier the layout was taught
    under: a scan whose letterhead OCR did not read); of those, `fingerprint.match` takes the
    one whose lines the page prints, or none when look-alikes are not told apart by their own
    lines."""
    if not pages:
        return LayoutMatch()
    named = [
        layout
        for layout in layouts
        if layout.fingerprint
        and (
            (linked_to and layout.supplier_id == linked_to)
            or (layout.issuer and read_constant(pages, layout.issuer))
        )
    ]
    if not named:
        return LayoutMatch()
    prints = [layout.fingerprint for layout in named]
    ocr = scanned(pages)
    pieces = fingerprints.pieces_of(pages) if ocr else []
    # Two layouts of one issuer taught under one registered supplier (its text pages and its
    # scans) are not look-alikes to tell apart: the better read is theirs either way. A
    # layout with no issuer people confirmed, or taught under no supplier, has no kin.
    kin = [
        f"{layout.supplier_id}\n{key}"
        if layout.supplier_id and (key := _name_key(layout.issuer))
        else ""
        for layout in named
    ]
    verdict = fingerprints.match(prints, lines_of(pages), ocr, pieces, kin)
    if verdict.ambiguous:
        return LayoutMatch(None, verdict.score, ambiguous=True)
    if verdict.winner is None:
        return LayoutMatch()
    return LayoutMatch(named[verdict.winner], verdict.score)


def find_layout(
    store: LayoutStore, pages: Sequence[Page], linked_to: str | None = None
) -> LayoutMatch:
    """`match_layout` over the stored layouts' outlines, with the one that matched read whole
    (its profile, read consistently); no match when it was removed meanwhile."""
    found = match_layout(store.outlines(), pages, linked_to)
    if found.layout is None:
        return found
    whole = store.get(found.layout.layout_id)
    return replace(found, layout=whole) if whole is not None else LayoutMatch()


def layout_type(layouts: Sequence[Layout], pages: Sequence[Page]) -> str | None:
    """The document type a learned layout's reviews approved, when the page is that layout
    (`match_layout`), else None."""
    found = match_layout(layouts, pages).layout
    return (found.doc_type or None) if found is not None else None


def scanned(pages: Sequence[Page]) -> bool:
    """Whether the pages were read by OCR (their words carry a confidence)."""
    return any(w.confidence is not None for page in pages for c in page.cells() for w in c.words)


def lines_of(pages: Sequence[Page]) -> list[fingerprints.Line]:
    return fingerprints.lines_of(pages)


def match_by_id(
    store: SupplierStore, tax_ids: Sequence[FoundId], ibans: Sequence[IbanFinding]
) -> Match | None:
    """The supplier a checked tax id the page prints (outside the customer's block) claims,
    else the one a checked IBAN of the issuer's claims (1 and 2 of the module's docstring)."""
    for found in tax_ids:
        if found.valid and (supplier := store.by_key(found.key)) is not None:
            return Match(supplier, found.kind, found.key)
    for iban in ibans:
        if _mine(iban) and (supplier := store.by_key(f"iban:{iban.registry_iban}")) is not None:
            return Match(supplier, "iban", f"iban:{iban.registry_iban}")
    return None


def match_supplier(
    store: SupplierStore,
    tax_ids: Sequence[FoundId],
    ibans: Sequence[IbanFinding],
    vendor_name: str | None,
    layouts: Sequence[Page] = (),
    confident_name: str | None = None,
    by_layout: LayoutMatch | None = None,
) -> Match | None:
    """`layouts`: the pages; `confident_name`: the issuer name read with confidence, which
    a layout's supplier must not contradict; `by_layout`: the layout the page is."""
    by_id = match_by_id(store, tax_ids, ibans)
    if by_id is not None:
        return by_id
    linked = by_layout.layout if by_layout is not None else None
    if linked is not None and linked.supplier_id:
        supplier = store.get(linked.supplier_id)
        # A layout is shared by a software's every customer: the page must also name the
        # supplier (an issuer name read with confidence that is another's contradicts it).
        if supplier is not None and name_agrees(supplier, confident_name, layouts):
            assert by_layout is not None
            return Match(supplier, "fingerprint", "fingerprint", by_layout.score)
    best = name_match(store, vendor_name)
    if best is None:
        return None
    return Match(best[1], "name", best[1].name, round(best[0], 1))


def evidence_for(
    match: Match,
    tax_ids: Sequence[FoundId],
    ibans: Sequence[IbanFinding],
    layouts: Sequence[Page],
    confident_name: str | None,
    by_layout: LayoutMatch | None = None,
) -> list[str]:
    """Which evidence points to the matched supplier: its checked ids and IBANs printed as
    the issuer's, its name on the page, a layout taught under it that the page is."""
    supplier = match.supplier
    keys = set(supplier.keys)
    out = sorted({t.kind for t in tax_ids if t.valid and t.key in keys})
    if any(_mine(i) and f"iban:{i.registry_iban}" in keys for i in ibans):
        out.append("iban")
    if name_agrees(supplier, confident_name, layouts):
        out.append("name")
    linked = by_layout.layout if by_layout is not None else None
    if linked is not None and linked.supplier_id == supplier.supplier_id:
        out.append("fingerprint")
    return out


def name_match(
    store: SupplierStore, vendor_name: str | None, suppliers: Sequence[Supplier] | None = None
) -> tuple[float, Supplier] | None:
    """The registered supplier whose name or alias `vendor_name` matches best (rapidfuzz
    token-sort ratio at least NAME_SCORE, legal forms aside), with its score; or None.
    `suppliers`: the registry's list, when the caller has it already."""
    if not vendor_name:
        return None
    printed = name_keys(vendor_name)
    if len(printed.plain) < 3 and all(len(k) < 3 for k in printed.looks):
        return None
    best: tuple[float, Supplier] | None = None
    for supplier in store.all() if suppliers is None else suppliers:
        for name in (supplier.name, *supplier.aliases):
            score = name_score(printed, name_keys(name))
            if score >= NAME_SCORE and (best is None or score > best[0]):
                best = (score, supplier)
    return best


def _agrees(printed: str, supplier: Supplier) -> bool:
    keys = name_keys(printed)
    return any(
        name_score(keys, name_keys(name)) >= NAME_SCORE
        for name in (supplier.name, *supplier.aliases)
    )


def _within(name: str, text: str) -> bool:
    """The name within a line of text (a short line holding part of the name is no proof)."""
    return len(text) >= len(name) and fuzz.partial_ratio(name, text) >= NAME_SCORE


def name_agrees(supplier: Supplier, printed: str | None, layouts: Sequence[Page]) -> bool:
    """Whether the page names the supplier a checked id or IBAN points to: the issuer name
    read with confidence (`printed`) is its name or an alias; with none read, a line outside
    the customer's block prints one (OCR may have misread a letter: a partial ratio)."""
    if printed:
        return _agrees(printed, supplier)
    # Each name as folded and as its skeletons, against the line's same form.
    names = [name_keys(n) for n in (supplier.name, *supplier.aliases)]
    for page in layouts:
        customer = customer_cells(page)
        for line in page.lines:
            text = name_keys(" ".join(c.text for c in line if id(c) not in customer))
            for name in names:
                if len(name.plain) >= 4 and _within(name.plain, text.plain):
                    return True
                looks = zip(name.looks, text.looks, strict=True)
                if any(len(a) >= 4 and _within(a, b) for a, b in looks):
                    return True
    return False
