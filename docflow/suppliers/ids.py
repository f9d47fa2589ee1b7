"""Tax ids and IBANs printed on a page, each checked by `python-stdnum`.

A found id is `(kind, value, valid)` with the value in the compact form the registry keys on.
Kinds (the registry's CSV columns take the same names):

    vat     EU VAT numbers with their country prefix (USt-IdNr. `DE...`, TVA `FR...`, BTW
            `NL...B01`, NIF/CIF as `ES...`, partita IVA as `IT...`): `stdnum.eu.vat`, which
            checks each country's format and check digits. A Spanish NIF/CIF or an Italian
            partita IVA printed without the prefix after its label is the same VAT number.
    siret, siren   French company numbers (Luhn): `stdnum.fr.siret`, `stdnum.fr.siren`
    kvk     Dutch chamber of commerce number: eight digits after its label (it has no check
            digit, and stdnum has no module for it, so the label is the only evidence)
    cnpj    Brazilian company number: `stdnum.br.cnpj`
    cuit    Argentine tax id, after its label (`CUIT`, `C.U.I.T.`): `stdnum.ar.cuit`
    gstin   Indian GST number: `stdnum.in_.gstin`
    abn     Australian business number: `stdnum.au.abn`
    ein     US employer id, after its label: `stdnum.us.ein`
    iban    `stdnum.iban` (ISO 13616: country length and mod 97); found on a page in any
            printed form by the account reader (`docflow.accounts`: separators, grouping,
            case, a line break)

An id whose check fails is still returned (`valid=False`): it matches no supplier, and a page
may show it as found and failed. Why a library: these checks are many small national rules
that a well-kept package already gets right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stdnum import iban as _iban
from stdnum.ar import cuit as _cuit
from stdnum.au import abn as _abn
from stdnum.br import cnpj as _cnpj
from stdnum.es import nif as _es_nif
from stdnum.eu import vat as _vat
from stdnum.fr import siren as _siren
from stdnum.fr import siret as _siret
from stdnum.in_ import gstin as _gstin
from stdnum.it import iva as _it_iva
from stdnum.us import ein as _ein

from docflow.accounts import IBAN as _IBAN_KIND
from docflow.accounts import iban_valid as _account_iban_valid
from docflow.accounts import masked_iban as _masked_iban
from docflow.accounts.ibans import find_in_text

KINDS = ("vat", "siret", "siren", "kvk", "cnpj", "cuit", "gstin", "abn", "ein", "iban")


@dataclass(frozen=True)
class FoundId:
    kind: str
    value: str  # compact: no spaces, dots or dashes, upper case
    valid: bool
    start: int  # offsets in the text it was found in
    end: int

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.value}"


def _compact(raw: str) -> str:
    return re.sub(r"[\s.\-/]", "", raw).upper()


def _safe(check: Callable[[str], bool], value: str) -> bool:
    try:
        return bool(check(value))
    except Exception:  # a library's refusal of an odd input is a failed check, not a crash
        return False


def vat_valid(value: str) -> bool:
    return _safe(_vat.is_valid, value)


def iban_valid(value: str) -> bool:
    """ISO 13616 (schwifty, as the account reader checks every IBAN it finds)."""
    return _account_iban_valid(value)


def normalize(kind: str, raw: str) -> str:
    """The registry's form of an id of `kind` as a person typed it (CSV, the review page)."""
    return _compact(raw)


def is_valid(kind: str, value: str) -> bool:
    """The check for an id of `kind` in compact form."""
    checks: dict[str, Callable[[str], bool]] = {
        "vat": _vat.is_valid,
        "siret": _siret.is_valid,
        "siren": _siren.is_valid,
        "kvk": lambda v: bool(re.fullmatch(r"\d{8}", v)),
        "cnpj": _cnpj.is_valid,
        "cuit": _cuit.is_valid,
        "gstin": _gstin.is_valid,
        "abn": _abn.is_valid,
        "ein": _ein.is_valid,
        "iban": _iban.is_valid,
    }
    return kind in checks and _safe(checks[kind], value)


# An id is printed after its label; a separator, then the number (spaces, dots, dashes in it).
_SEP = r"\s*(?:n[°ºo.]?\s*)?[:#.]?\s*"
_LABELLED: tuple[tuple[str, str, str], ...] = (
    # (kind, label pattern, value pattern)
    ("siret", r"siret", r"\d{3}\s?\d{3}\s?\d{3}\s?\d{5}"),
    ("siren", r"siren|rcs(?:\s+[a-z]+)?", r"\d{3}\s?\d{3}\s?\d{3}(?!\s?\d)"),
    ("kvk", r"kvk(?:[\s-]*(?:nummer|nr))?|kamer\s+van\s+koophandel", r"\d{8}(?!\d)"),
    ("cnpj", r"cnpj(?:\s*/\s*cpf)?", r"\d{2}\.?\d{3}\.?\d{3}/?\d{4}-?\d{2}"),
    ("cuit", r"c\.?u\.?i\.?t\.?", r"\d{2}-?\d{8}-?\d(?!\d)"),
    ("abn", r"abn", r"\d{2}\s?\d{3}\s?\d{3}\s?\d{3}"),
    ("ein", r"ein|employer\s+id(?:entification)?(?:\s+number)?|fein", r"\d{2}-?\d{7}(?!\d)"),
    ("es_nif", r"n\.?i\.?f\.?|c\.?i\.?f\.?", r"[A-Z]?-?\d{7,8}-?[A-Z0-9]"),
    ("it_iva", r"p\.?\s?iva|partita\s+iva|p\.?\s?i\.?", r"\d{11}(?!\d)"),
)
_LABEL_RES = tuple(
    (kind, re.compile(rf"(?<![\w])(?:{label}){_SEP}({value})", re.IGNORECASE))
    for kind, label, value in _LABELLED
)
# Printed anywhere with their own shape: an EU VAT number with its country prefix, a GSTIN.
_VAT_RE = re.compile(
    r"(?<![A-Z0-9])((?:ATU|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT"
    r"|RO|SE|SI|SK|XI)\s?[0-9A-Z](?:[\s.]?[0-9A-Z]){7,12})(?![A-Z0-9])"
)
_GSTIN_RE = re.compile(r"(?<![A-Z0-9])(\d{2}[A-Z]{5}\d{4}[A-Z][0-9A-Z]Z[0-9A-Z])(?![A-Z0-9])")


# A cell that is an id's label and nothing else (a boxed form's `CNPJ / CPF`, a table's
# `USt-IdNr.:`): its value is in the next cell or the one under it.
_LABEL_ONLY = re.compile(
    rf"^\s*(?:{'|'.join(label for _kind, label, _value in _LABELLED)}){_SEP}$", re.IGNORECASE
)


def label_only(text: str) -> bool:
    """`text` is a tax id's label with no value after it."""
    return bool(_LABEL_ONLY.match(text))


def find_ibans(text: str) -> Iterator[FoundId]:
    """Every IBAN printed in `text` in any form (the account reader's), checked (a bad
    checksum is `valid=False`)."""
    for account, start, end in find_in_text(text):
        if account.kind == _IBAN_KIND:
            yield FoundId("iban", account.value, account.valid, start, end)


def find_tax_ids(text: str) -> Iterator[FoundId]:
    """Tax ids: after their labels, and EU VAT numbers and GSTINs by their own shape."""
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return not any(s < end and start < e for s, e in taken)

    ibans = [(f.start, f.end) for f in find_ibans(text)]
    taken.extend(ibans)
    for kind, pattern in _LABEL_RES:
        for m in pattern.finditer(text):
            if not free(m.start(1), m.end(1)):
                continue
            value = _compact(m[1])
            taken.append((m.start(1), m.end(1)))
            if kind == "es_nif":
                yield FoundId("vat", f"ES{value}", _safe(_es_nif.is_valid, value), *m.span(1))
            elif kind == "it_iva":
                yield FoundId("vat", f"IT{value}", _safe(_it_iva.is_valid, value), *m.span(1))
            else:
                yield FoundId(kind, value, is_valid(kind, value), m.start(1), m.end(1))
    upper = text.upper()
    for m in _GSTIN_RE.finditer(upper):
        if free(m.start(1), m.end(1)):
            taken.append((m.start(1), m.end(1)))
            yield FoundId("gstin", m[1], is_valid("gstin", m[1]), m.start(1), m.end(1))
    for m in _VAT_RE.finditer(upper):
        value = _compact(m[1])
        # A word that starts with a country code (`SIRET 732...`) is no VAT number: the number
        # has digits right after its prefix, and six at least.
        body = value[2:]
        if not any(c.isdigit() for c in body[:3]) or sum(c.isdigit() for c in body) < 6:
            continue
        if free(m.start(1), m.end(1)):
            taken.append((m.start(1), m.end(1)))
            yield FoundId("vat", value, vat_valid(value), m.start(1), m.end(1))


def find_ids(text: str) -> list[FoundId]:
    """Tax ids and IBANs in text order."""
    return sorted([*find_tax_ids(text), *find_ibans(text)], key=lambda f: f.start)


def masked_iban(value: str) -> str:
    """How a page, a log or the read model may show an IBAN: country and last four."""
    return _masked_iban(value)
