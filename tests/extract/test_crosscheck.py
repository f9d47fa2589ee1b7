"""The cross-checks after the labels chose the amounts
(`docflow/extract/rules_engine/crosscheck.py`): a printed tax rate checks the tax, a tax line
the rules did not read sends the document to a person, a currency sign OCR read as a digit is
caught, and a net the page does not print is derived from total and tax, marked so."""

from __future__ import annotations

from docflow.extract.base import FoundField, PageInput
from docflow.extract.rules_engine.crosscheck import (
    derive_net,
    rate_verdict,
    sign_digit,
    tax_lines,
    unread_tax_line,
    without_sign_digit,
)
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.extract.rules_engine.layout import from_text

NAMES = ("invoice_number", "currency", "net_amount", "tax_amount", "total_amount")


def _f(value: str, confidence: float = 0.99) -> FoundField:
    return FoundField(value, confidence, 1)


def _lines(text: str) -> list:
    return tax_lines([from_text(1, text)])


def test_a_printed_rate_checks_the_tax_amount() -> None:
    printed = ("IVA 21%: 210,00 €", "MwSt. 21 %   210,00 EUR", "TVA 21 % 210,00", "BTW (21%) 210")
    for text in printed:
        lines = _lines(f"Base imponible: 1.000,00\n{text}\nTotal: 1.210,00")
        fields = {"net_amount": _f("1000.00"), "tax_amount": _f("210.00")}
        assert rate_verdict(fields, lines) == "match", text
        fields["tax_amount"] = _f("190.00")
        assert rate_verdict(fields, lines) == "mismatch", text


def test_several_rates_or_no_net_check_nothing() -> None:
    lines = _lines("MwSt 19%: 19,00\nMwSt 7%: 7,00")
    assert rate_verdict({"net_amount": _f("200.00"), "tax_amount": _f("26.00")}, lines) is None
    assert rate_verdict({"tax_amount": _f("19.00")}, _lines("MwSt 19%: 19,00")) is None


def test_a_tax_line_with_an_amount_and_no_tax_read_is_a_finding() -> None:
    lines = _lines("Base imponible: 1.000,00\nI.V.A. (21%): 210,00\nTotal: 1.210,00")
    finding = unread_tax_line({"total_amount": _f("1210.00")}, lines)
    assert finding is not None and finding.code == "unread-tax-line"
    assert unread_tax_line({"tax_amount": _f("210.00")}, lines) is None
    # A rate printed with no amount beside it (`prices include 21% VAT`) is no tax line.
    assert unread_tax_line({}, _lines("All prices include VAT 21%")) is None


def test_the_engine_sends_an_unread_spanish_tax_line_to_a_person() -> None:
    text = "Factura No: F-17\nBase imponible: 1.000,00 EUR\nI.V.A. (21%): 210,00 EUR\n"
    text += "Total a pagar: 1.210,00 EUR"
    found = RulesEngine().extract([PageInput(1, text, "textlayer", 100.0)], NAMES)
    assert "tax_amount" not in found.fields
    assert [f.code for f in found.findings] == ["unread-tax-line"]


def test_every_amount_starting_with_4_and_no_sign_is_a_sign_read_as_a_digit() -> None:
    text = "Subtotal: 4100.00\nVAT 20%: 420.00\nTotal due: 4120.00"
    assert sign_digit({1: text}) == (1, "4")
    assert sign_digit({1: text.replace("4120.00", "4120.00 GBP")}) is None  # a code: no
    assert sign_digit({1: "Subtotal: 4100.00\nTotal: 4120.00"}) is None  # too few to tell
    assert sign_digit({1: "Net 100.00\nTax 20.00\nTotal 120.00"}) is None


def test_dropping_the_digit_is_taken_only_when_it_makes_the_amounts_add_up() -> None:
    fields = {
        "net_amount": _f("4100.00"),
        "tax_amount": _f("420.00"),
        "total_amount": _f("4120.00"),
    }
    fixed = without_sign_digit(fields, "4")
    assert [fixed[n].value for n in ("net_amount", "tax_amount", "total_amount")] == [
        "100.00",
        "20.00",
        "120.00",
    ]
    assert fixed["total_amount"].evidence["sign_digit"] == "4"
    odd = {**fields, "tax_amount": _f("430.00")}
    assert without_sign_digit(odd, "4") is odd  # still does not add up: left as read


def test_a_net_the_page_does_not_print_is_derived_when_total_and_tax_are_sure() -> None:
    limits = {"total_amount": 0.9, "tax_amount": 0.9}
    net = derive_net({"total_amount": _f("1210.00"), "tax_amount": _f("210.00", 0.95)}, limits)
    assert net is not None and net.derived and net.value == "1000.00"
    assert net.summary()["derived"] is True and net.confidence == 0.95
    unsure = {"total_amount": _f("1210.00"), "tax_amount": _f("210.00", 0.5)}
    assert derive_net(unsure, limits) is None
    printed = {**unsure, "tax_amount": _f("210.00"), "net_amount": _f("1000.00")}
    assert derive_net(printed, limits) is None  # printed: nothing to derive


def test_a_total_whose_label_ocr_lost_is_the_printed_sum_of_net_and_tax() -> None:
    # A receipt's `TOTAL:` read as `OBEN:`: net and tax read, and the page prints their sum.
    page = PageInput(
        1,
        "Sub Total : RM 68.87\nGST/TAX 6% : RM 4.13\nOBEN: RM 73.00\nCASH: RM 73.00\n",
        "textlayer",
        100.0,
    )
    found = RulesEngine().extract([page], ["net_amount", "tax_amount", "total_amount"]).fields
    assert found["total_amount"].value == "73.00"
    assert found["total_amount"].evidence["source"] == "printed-sum"
    # No such figure printed: no total is made up.
    bare = PageInput(1, "Sub Total : RM 68.87\nGST/TAX 6% : RM 4.13\n", "textlayer", 100.0)
    assert "total_amount" not in RulesEngine().extract([bare], ["total_amount"]).fields
