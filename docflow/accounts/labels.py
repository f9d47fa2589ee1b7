"""The words around an account that say what it is for, in English, German, French,
Spanish, Italian, Dutch and Portuguese. Matched on `normalize.plain` text (lower case, no
accents), so OCR's `Uberweisung` reads as the printed `Überweisung`.

    pay-to    the reader is asked to pay, or the issuer names its bank details: a transfer
              (`überweisen`, `bank transfer`, virement, bonifico, transferencia, overboeking,
              transferência), `pay to`, `payable to`, `remit to`, `to our account`,
              `Bankverbindung`, `bank details`, `coordonnées bancaires`, `datos bancarios`,
              `coordinate bancarie`, `bankgegevens`, `dados bancários`
    mandate   an account to be debited: `direct debit`, `debit my account`, Lastschrift,
              prélèvement, domiciliación, addebito / RID, incasso, machtiging, débito direto;
              a mandate word negated (`No direct debit`) is none
    reader    the reader's own account (a refund, the customer's details): `your account`,
              `auf Ihr Konto`, `votre compte`, `Ihre Bankverbindung`, `customer IBAN`
    label     an account's label: IBAN, sort code, routing number, ABA, BLZ, bank account,
              Kontonummer, RIB, n° de compte, número de cuenta, CCC, CBU, conto corrente
              bancario, rekeningnummer, NIB, número de conta
    settled   nothing is left to pay: `paid in full`, `already paid`, `bereits bezahlt`,
              `déjà payé`, `ya pagado`, `già pagato`, `reeds betaald`, `já pago`, a `PAID`
              stamp; negated (`not paid`) it is none

An account's purpose is the nearest of the pay-to, mandate and reader words: on its own line
(before it, or after it at a small penalty) and on the line over it, and for pay-to and
reader words up to PAY_TO_LINES over it (`nearest`). So "No direct debit: please pay by bank
transfer to IBAN ..." is a payee's account, and "Please debit my account:" over an IBAN a
mandate even under "Payment by bank transfer or direct debit:".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PAY_TO, MANDATE, READER, LABEL, SETTLED = "pay-to", "mandate", "reader", "label", "settled"
DIRECTIONS = (PAY_TO, MANDATE, READER)
PAY_TO_LINES = 3  # how far over an account a pay-to or reader's word may stand
AFTER_PENALTY = 40  # a word after the account on its line counts as this much farther

_PAY_TO = re.compile(
    r"uberweis|ueberweis|bank\s*transfer|wire\s+transfer|credit\s+transfer|by\s+transfer"
    r"|\bpay(?:able|ment)?\s+to\b|remit(?:tance)?\s+to|please\s+(?:pay|transfer|remit)"
    r"|\bto\s+(?:our|the\s+following)\s+(?:bank\s+)?account"
    r"|\bauf\s+(?:unser|folgendes|das\s+folgende)\s+konto|zahlbar\s.{0,40}\bauf\b"
    r"|virement|\bsur\s+(?:notre|le\s+compte)|transferencia|transferir|\bingres[ae]r?\s+en"
    r"|\ben\s+(?:nuestra|la\s+siguiente)\s+cuenta|bonifico|\bversare\b|\bsul\s+(?:nostro|seguente)\s+conto"
    r"|overboeking|overschrijving|over\s+te\s+maken|overmaken|storten\s+op"
    r"|\bop\s+(?:onze|de\s+volgende)\s+rekening|\bna\s+(?:nossa|seguinte)\s+conta"
    r"|bankverbindung|\bbank\s*(?:account\s+)?details|coordonnees\s+bancaires|datos\s+bancarios"
    r"|coordinate\s+bancarie|bankgegevens|dados\s+bancarios",
    re.IGNORECASE,
)
# Of the pay-to words, those that name the issuer's bank details rather than ask for a
# transfer: a paid invoice's footer prints them too.
_BANK_DETAILS = re.compile(
    r"bankverbindung|\bbank\s*(?:account\s+)?details|coordonnees\s+bancaires|datos\s+bancarios"
    r"|coordinate\s+bancarie|bankgegevens|dados\s+bancarios",
    re.IGNORECASE,
)
_MANDATE = re.compile(
    r"debit\s+(?:my|our|your|the)\s+account|direct\s+debit|debit\s+mandate|to\s+be\s+debited"
    r"|lastschrift|einzugsermachtigung|abbuchen|einziehen|abgebucht|eingezogen"
    r"|prelevement|mandat\s+sepa|autorise\s+.{0,40}debiter|domiciliacion|adeudo"
    r"|cargo\s+en\s+cuenta|addebito|\brid\b|incasso|machtiging|automatische\s+afschrijving"
    r"|debito\s+direto|debito\s+em\s+conta",
    re.IGNORECASE,
)
_READER = re.compile(
    r"\byour\s+(?:bank\s+)?(?:account|details)|\bihr(?:em|en|e)?\s+(?:konto|bankverbindung)"
    r"|\bvotre\s+compte|\bvos\s+coordonnees|\bsu\s+cuenta|\bsus\s+datos|\buw\s+(?:rekening|bankgegevens)"
    r"|\bvostr[oe]\s+(?:conto|coordinate)|\bsua\s+conta|\bseus\s+dados"
    r"|(?:customer|client|kunden|cliente|klant)\W{0,3}(?:s\s+)?iban"
    r"|iban\s+(?:des\s+kunden|du\s+client|del\s+cliente|van\s+de\s+klant|do\s+cliente)",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"\biban\b|\bsort[\s-]*code|\brouting\b|\baba\b|\brtn\b|\bblz\b|bankleitzahl"
    r"|\bbank\s*(?:account|acct|a/c)\b|bankkonto|kontonummer|\bkonto[\s.-]*nr|\bkto\b"
    r"|\brib\b|compte\s+bancaire|\bn[°o]\.?\s*(?:de\s+)?compte\b|numero\s+de\s+compte"
    r"|cuenta\s+bancaria|\bn(?:umero|[°o])\.?\s*(?:de\s+)?cuenta\b|\bccc\b|\bcbu\b"
    r"|conto\s+corrente\s+bancario|\bc/c\s+bancario|bankrekening|rekening\s*(?:nr|nummer)"
    r"|\bnib\b|conta\s+bancaria|\bn(?:umero|[°o])\.?\s*(?:da\s+|de\s+)?conta\b",
    re.IGNORECASE,
)
_SETTLED = re.compile(
    r"already\s+paid|paid\s+in\s+full|fully\s+paid|payment\s+received|\bpaid\s+(?:by|with|via|on)\b"
    r"|^\W*paid\W*$|bereits\s+bezahlt|bezahlt\s+(?:am|per|mit)|dankend\s+erhalten"
    r"|deja\s+(?:paye|regle)|facture\s+acquittee|ya\s+pagad|pagado\s+(?:el|con|en)"
    r"|gia\s+pagat|pagato\s+(?:il|con|in)|reeds\s+betaald|al\s+betaald|betaald\s+(?:op|per|met)"
    r"|ja\s+pag[ao]|\bpaga\s+em",
    re.IGNORECASE,
)
# A word that undoes the one after it: `No direct debit`, `keine Lastschrift`, `not paid`.
_NEGATED = re.compile(
    r"\b(?:no|not|without|un|kein\w*|nicht|ohne|pas\s+de|pas|sans|sin|nessun\w*|senza|non"
    r"|geen|niet|zonder|sem|nao)\W+(?:\w+\W+)?$",
    re.IGNORECASE,
)
_KINDS = ((PAY_TO, _PAY_TO), (MANDATE, _MANDATE), (READER, _READER), (LABEL, _LABEL))


@dataclass(frozen=True)
class Cue:
    kind: str
    line: int
    start: int
    end: int
    details: bool = False  # a pay-to cue that names bank details, asking no transfer


def asks_transfer(cue: Cue) -> bool:
    """A pay-to cue that asks the reader for a transfer (not bank details alone)."""
    return cue.kind == PAY_TO and not cue.details


def _negated(text: str, start: int) -> bool:
    return bool(_NEGATED.search(text[max(0, start - 24) : start]))


def cues(lines: Sequence[str]) -> list[Cue]:
    """Every cue on these lines (`plain` text), in reading order. Where two cues overlap, the
    longer stands (`Ihre Bankverbindung` is the reader's, not a pay-to `Bankverbindung`)."""
    found: list[Cue] = []
    for index, text in enumerate(lines):
        here: list[Cue] = []
        for kind, pattern in _KINDS:
            for m in pattern.finditer(text):
                if kind == MANDATE and _negated(text, m.start()):
                    continue
                details = kind == PAY_TO and bool(_BANK_DETAILS.fullmatch(m.group()))
                here.append(Cue(kind, index, m.start(), m.end(), details))
        for m in _SETTLED.finditer(text):
            if not _negated(text, m.start()):
                here.append(Cue(SETTLED, index, m.start(), m.end()))
        here.sort(key=lambda c: (c.start, -(c.end - c.start)))
        kept: list[Cue] = []
        for cue in here:
            inside = [k for k in kept if k.start <= cue.start and cue.end <= k.end]
            if inside and any(k.kind != cue.kind for k in inside):
                continue
            # A longer cue of another kind over this one replaces it.
            kept = [
                k
                for k in kept
                if not (cue.start <= k.start and k.end <= cue.end and k.kind != cue.kind)
            ]
            kept.append(cue)
        found.extend(kept)
    return found


def nearest(
    found: Sequence[Cue],
    line: int,
    start: int,
    end: int,
    stops: set[int] | None = None,
) -> Cue | None:
    """The pay-to, mandate or reader's cue that says what the thing printed at (line,
    start..end) is for: the nearest on its own line, then on the line over it, then (pay-to
    and reader's only) up to PAY_TO_LINES over it; `stops`: lines holding an account of
    their own, above which no cue reaches (its words are its own)."""
    best: tuple[float, Cue] | None = None
    for cue in found:
        if cue.kind not in DIRECTIONS:
            continue
        over = line - cue.line
        if over < 0 or over > PAY_TO_LINES or (over > 1 and cue.kind == MANDATE):
            continue
        if over and stops and any(cue.line <= s < line for s in stops):
            continue
        if over == 0:
            if cue.end <= start:
                distance: float = start - cue.end
            elif cue.start >= end:
                distance = cue.start - end + AFTER_PENALTY
            else:
                distance = 0.0
        else:
            distance = over * 10_000 - cue.end
        if best is None or distance < best[0]:
            best = (distance, cue)
    return best[1] if best else None
