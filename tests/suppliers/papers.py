"""Real PDFs of made-up suppliers' documents: a header block, a body and a footer printed at
the bottom of the page, as issuers print their bank details."""

from __future__ import annotations

import io
from collections.abc import Sequence

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

# Checked numbers (they pass python-stdnum's checks) of the made-up suppliers.
BLAUWAL_NAME = "Blauwal Hafenlogistik GmbH"
BLAUWAL_VAT = "DE812345673"
BLAUWAL_IBAN = "DE89 3704 0044 0532 0130 00"
CUSTOMER_IBAN = "NL91 ABNA 0417 1643 00"
BAD_IBAN = "DE89 3704 0044 0532 0130 01"  # one digit off: fails mod 97
OTHER_VAT = "DE273456782"


UNICODE_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def paper(
    lines: list[str],
    footer: Sequence[str] = (),
    x: float = 56,
    top: float = 780,
    unicode: bool = False,
) -> bytes:
    """One A4 page: `lines` from the top, `footer` at the bottom (text layer); `unicode`: in
    DejaVu Sans (Czech, Greek: letters Helvetica's encoding lacks)."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4)
    font = "Helvetica"
    if unicode:
        font = "DejaVuSans"
        pdfmetrics.registerFont(TTFont(font, UNICODE_FONT))
    c.setFont(font, 11)
    y = top
    for line in lines:
        c.drawString(x, y, line)
        y -= 17
    y = 40 + 14 * len(footer)
    for line in footer:
        c.drawString(56, y, line)
        y -= 14
    c.showPage()
    c.save()
    return out.getvalue()


def blauwal_invoice(
    number: str = "E2026000000017",
    label: str = "Belegkennung",
    name: str = BLAUWAL_NAME,
    footer_iban: str = BLAUWAL_IBAN,
    extra: list[str] = (),  # type: ignore[assignment]
    moved: bool = False,
    date: str = "",
) -> bytes:
    """An invoice whose number sits after a label the rules do not know (`Belegkennung`);
    `moved` prints it in another place under another label (a changed layout). Its date
    (`DD.MM.2026`) follows the number unless given, in another month for the next number, so
    two invoices of other numbers are not one bill twice to the duplicate check (the same
    supplier and total within a week is a possible duplicate)."""
    if not date:
        n = int("".join(c for c in number if c.isdigit())[-2:] or "3")
        date = f"{n % 28 + 1:02d}.{n % 12 + 1:02d}.2026"
    head = [
        name,
        "Kaiweg 12, 20457 Hamburg",
        f"USt-IdNr.: {BLAUWAL_VAT}",
        "",
        "RECHNUNG",
    ]
    number_line = [] if moved else [f"{label}: {number}"]
    body = [
        *number_line,
        f"Rechnungsdatum: {date}",
        "Rechnungsempfänger: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
        "",
        "Lagerung Februar                      1.000,00 EUR",
        "Nettobetrag: 1.000,00 EUR",
        "MwSt. 19%: 190,00 EUR",
        "Gesamtbetrag: 1.190,00 EUR",
        *extra,
    ]
    if moved:
        body += ["", "", "", "", f"Vorgang {number}"]
    footer = [f"{name} - Commerzbank - IBAN {footer_iban} - BIC COBADEFFXXX"]
    return paper([*head, *body], footer)


# A made-up supplier whose invoices print no checked id of its own (its VAT id fails its
# check digit) and its number after a label no rule knows (issue 47: known by its layout).
KRANICH = "Kranich Druck GmbH"
KRANICH_BAD_VAT = "DE812345670"


def german(cents: int) -> str:
    """`1.234,50`: an amount as a German invoice prints it."""
    euros, rest = divmod(cents, 100)
    return f"{euros:,}".replace(",", ".") + f",{rest:02d}"


def kranich_invoice(number: str, net: int = 100_000, total: str = "", iban: str = "") -> bytes:
    """`net` in cents, 19% tax on it; `total` printed instead of net + tax (one that does not
    reconcile); `iban` a payee account printed in the footer (it prints none: it is paid on
    the registry's). Its date follows the number, in another month for the next number, so
    two invoices are not one sent twice (nor a possible duplicate: a week apart)."""
    n = int(number[-2:])
    day, month = n % 28 + 1, n % 12 + 1
    tax = round(net * 0.19)
    lines = [
        KRANICH,
        "Hafenstrasse 3, 20457 Hamburg",
        f"USt-IdNr.: {KRANICH_BAD_VAT}",
        "",
        "RECHNUNG",
        f"Belegnr. intern: {number}",
        f"Rechnungsdatum: {day:02d}.{month:02d}.2026",
        "Rechnungsempfänger: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
        "",
        f"Druckauftrag Broschüren                      {german(net)} EUR",
        f"Nettobetrag: {german(net)} EUR",
        f"MwSt. 19%: {german(tax)} EUR",
        f"Gesamtbetrag: {total or german(net + tax)} EUR",
        "Zahlbar innerhalb von 14 Tagen ohne Abzug.",
    ]
    pay = f" - Bitte zahlen Sie auf IBAN {iban}" if iban else ""
    return paper(lines, [f"{KRANICH} - Hafenstrasse 3 - Erstellt mit FakturaPro 7{pay}"])
