"""Issue 59 item 3: a recognized layout knows its document type. A known supplier's invoice in
Czech or Greek (no rule of the rules file names a word of it) went to triage every time; now
page 1 is the layout its reviews taught, and it takes the type they approved (the real handler
on the durable testing runner, moto). A page of no known layout still goes to triage."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from docflow.suppliers import profile
from tests.suppliers.layouts import pdf_page, put_layout, trusted
from tests.suppliers.papers import paper
from tests.support.aws import Stack
from tests.support.reviewed_runs import run_reviewed

ISSUER = "Tiskárna Jeřáb s.r.o."


def czech(number: str) -> list[str]:
    return [
        ISSUER,
        "Na Poříčí 12, 110 00 Praha 1",
        "DIČ: CZ12345678",
        "FAKTURA - DAŇOVÝ DOKLAD",
        f"Číslo dokladu: {number}",
        "Datum vystavení: 04.03.2026",
        "Odběratel: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
        "Základ daně: 10 000,00 Kč",
        "DPH 21 %: 2 100,00 Kč",
        "Celkem k úhradě: 12 100,00 Kč",
    ]


GREEK_ISSUER = "Τυπογραφείο Γερανός Α.Ε."


def greek(number: str) -> list[str]:
    return [
        GREEK_ISSUER,
        "Οδός Ερμού 12, 105 63 Αθήνα",
        "ΑΦΜ: EL094014201",
        "ΤΙΜΟΛΟΓΙΟ ΠΩΛΗΣΗΣ",
        f"Αριθμός παραστατικού: {number}",
        "Ημερομηνία έκδοσης: 04.03.2026",
        "Πελάτης: Nordlicht Handel AG, Ostweg 3, 10115 Berlin",
        "Καθαρή αξία: 10.000,00 €",
        "ΦΠΑ 24%: 2.400,00 €",
        "Σύνολο πληρωμής: 12.400,00 €",
    ]


LANGUAGES = {
    "czech": (czech, ISSUER, "Číslo dokladu", "Pekárna Novák a.s."),
    "greek": (greek, GREEK_ISSUER, "Αριθμός παραστατικού", "Αρτοποιείο Νικολάου Ο.Ε."),
}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_known_layout_in_a_language_no_rule_knows_is_not_triaged(
    stack: Stack, use_rules: Callable[..., None], language: str
) -> None:
    lines, issuer, label, stranger = LANGUAGES[language]
    use_rules(min_confirmations=2, rate=0.0)
    taught = pdf_page(paper(lines("2026-0416"), unicode=True))
    entry = profile.learn_entry([taught], "invoice_number", "2026-0416")
    assert entry is not None and entry["label"] == label
    put_layout(taught, issuer, {"invoice_number": trusted(entry)}, doc_type="invoice")
    answer = {"approved": True, "reviewer": "ap@example.com"}
    out, waited, _ = run_reviewed(
        stack, paper(lines("2026-0417"), unicode=True), f"in/{language}.pdf", [answer]
    )
    assert [w["stageName"] for w in waited] == ["fields"], waited
    assert out["docType"] == "invoice" and out["layout"]["status"] == "matched"
    assert out["fields"]["invoice_number"]["value"] == "2026-0417"
    assert out["fields"]["invoice_number"]["source"] == "profile"
    # Another supplier's invoice in the language: no layout, so a person picks the type.
    other = [line.replace(issuer, stranger) for line in lines("77")]
    picked = [{**answer, "docType": "invoice"}, answer]  # the type, then its fields
    _, waited, _ = run_reviewed(stack, paper(other, unicode=True), "in/other.pdf", picked)
    assert [w["stageName"] for w in waited] == ["triage", "fields"]
