"""Tables the rules engine reads from the word boxes under a declared header, and the checks
a table declares against its type's fields. Real PDFs drawn with their columns at fixed x
positions, read by the real text-layer reader or by real tesseract."""

from __future__ import annotations

import tomllib

import pytest

from docflow.document import Check
from docflow.extract.base import PageInput
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.checks.spec import parse_field_rules
from docflow.extract.checks.table_checks import unverified_tables
from docflow.extract.declarations.model import TypeDecl, parse_declarations
from docflow.extract.declarations.toml_lines import DeclarationError
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.pdf import open_pdf
from docflow.readers.base import Word
from docflow.readers.tesseract import TesseractReader
from docflow.readers.textlayer import TextLayerReader
from tests.kit.pdfgen import Placed, columns_pdf

RULES = """[fields]
stage = "fields"

[fields.types.invoice.fields.net_amount]
kind = "amount"

[fields.types.invoice.fields.total_amount]
kind = "amount"

[fields.types.invoice.fields.lines]
kind = "table"
checks = [{ sum = "amount", equals = "net_amount" }]

[[fields.types.invoice.fields.lines.columns]]
name = "description"
kind = "text"
labels = { en = ["description"], de = ["bezeichnung"] }
required = true

[[fields.types.invoice.fields.lines.columns]]
name = "quantity"
kind = "number"
labels = { en = ["qty"], de = ["menge"] }

[[fields.types.invoice.fields.lines.columns]]
name = "amount"
kind = "amount"
labels = { en = ["amount"], de = ["betrag"] }
required = true

[fields.types.statement.fields.statement_date]
kind = "date"
labels = { en = ["statement date", "date"] }

[fields.types.statement.fields.opening_balance]
kind = "amount"
labels = { en = ["opening balance", "balance brought forward"] }

[fields.types.statement.fields.closing_balance]
kind = "amount"
labels = { en = ["closing balance"] }

[fields.types.statement.fields.transactions]
kind = "table"
columns = [
  { name = "date", kind = "date", required = true },
  { name = "description", kind = "text", labels = { en = ["details"] } },
  { name = "amount", kind = "amount", required = true },
]

[[fields.types.statement.fields.transactions.checks]]
balance = "amount"
opening = "opening_balance"
closing = "closing_balance"
tolerance = 0.01
"""


def types() -> dict[str, TypeDecl]:
    return parse_declarations(tomllib.loads(RULES)["fields"]["types"], RULES)


def read(pdf_bytes: bytes, scan: bool = False) -> list[PageInput]:
    reader = TesseractReader(dpi=300) if scan else TextLayerReader()
    out = []
    with open_pdf(pdf_bytes) as pdf:
        for number in range(1, len(pdf) + 1):
            page = reader.read(pdf, number)
            out.append(PageInput(number, page.text, page.engine, page.confidence, words=page.words))
    return out


def line(description: str, qty: str, price: str, amount: str) -> list[Placed]:
    return [(0.1, description), (0.55, qty, "r"), (0.7, price, "r"), (0.88, amount, "r")]


HEADER: list[Placed] = [(0.1, "Description"), (0.5, "Qty"), (0.62, "Unit price"), (0.82, "Amount")]
TOP: list[list[Placed]] = [[(0.1, "ACME SUPPLIES LTD")], [(0.1, "INVOICE INV-1001")], []]


def totals(net: str, tax: str, total: str) -> list[list[Placed]]:
    return [
        [(0.1, "Subtotal"), (0.88, net, "r")],
        [(0.1, "Tax"), (0.88, tax, "r")],
        [(0.1, "Total due"), (0.88, total, "r")],
        [(0.1, "Thank you for your business")],
    ]


INVOICE: list[list[Placed]] = [
    *TOP,
    HEADER,
    line("Paper, A4 box", "40", "25.00", "1,000.00"),
    line("Toner cartridge", "2", "40.00", "80.00"),
    [(0.1, "black, high yield")],
    line("Delivery", "1", "100.00", "100.00"),
    *totals("1,180.00", "118.00", "1,298.00"),
]
ROWS = [
    {"description": "Paper, A4 box", "quantity": "40", "amount": "1000.00"},
    {"description": "Toner cartridge black, high yield", "quantity": "2", "amount": "80.00"},
    {"description": "Delivery", "quantity": "1", "amount": "100.00"},
]


def extract(pages: list[PageInput], type_name: str = "invoice"):
    return RulesEngine().extract(pages, types()[type_name])


def reasons(pages: list[PageInput], type_name: str, text: str = RULES) -> list[dict[str, str]]:
    rules = parse_field_rules(tomllib.loads(text)["fields"], text)
    spec = rules.for_type(type_name)
    assert spec is not None
    found = RulesEngine().extract(pages, spec)
    fields = {n: f.summary() for n, f in found.fields.items()}
    return check_fields(fields, spec, rules, {r["field"] for r in found.rejected})


def test_a_header_and_three_rows_with_a_wrapped_description_up_to_the_totals() -> None:
    found = extract(read(columns_pdf([INVOICE]))).fields
    lines = found["lines"]
    assert lines.value == "3 rows" and list(lines.rows or ()) == ROWS
    assert lines.page == 1 and lines.confidence == pytest.approx(0.95)
    assert lines.evidence["dropped"] == 0 and lines.evidence["source"] == "table-header"
    x0, y0, x1, y1 = lines.box or (0, 0, 0, 0)
    assert 0.05 < x0 < 0.15 and x1 > 0.85 and y0 < y1 < 0.4  # the table, not the totals
    # The built-in fields read as before, beside the table.
    assert (found["net_amount"].value, found["total_amount"].value) == ("1180.00", "1298.00")


def test_the_lines_adding_up_to_the_net_amount_give_no_reason() -> None:
    assert not [r for r in reasons(read(columns_pdf([INVOICE])), "invoice") if "table" in r.code]


def test_lines_that_do_not_add_up_to_the_net_amount_are_a_table_sum_reason() -> None:
    page = [*TOP, HEADER, *INVOICE[4:8], *totals("1,200.00", "120.00", "1,320.00")]
    found = reasons(read(columns_pdf([page])), "invoice")
    (sum_reason,) = [r.to_json() for r in found if r.code == "table-sum"]
    assert sum_reason == {
        "field": "lines",
        "code": "table-sum",
        "message": "lines: amount adds up to 1,180.00 but net_amount reads 1,200.00",
    }


def test_a_table_continued_on_the_next_page_under_its_repeated_header() -> None:
    first = [*TOP, HEADER, *INVOICE[4:7], [], [], [], [], [(0.4, "continued overleaf")]]
    second = [
        [(0.1, "ACME SUPPLIES LTD - page 2")],
        [],
        HEADER,
        INVOICE[7],
        *totals("1,180.00", "118.00", "1,298.00"),
    ]
    found = extract(read(columns_pdf([first, second]))).fields["lines"]
    assert list(found.rows or ()) == ROWS
    assert found.page == 1 and found.evidence["pages"] == [1, 2]


def test_a_row_without_its_required_amount_is_dropped_and_counted() -> None:
    page = [
        *TOP,
        HEADER,
        *INVOICE[4:6],
        line("Discount voucher", "1", "", "n/a"),
        *totals("1,080.00", "0.00", "1,080.00"),
    ]
    found = extract(read(columns_pdf([page]))).fields["lines"]
    assert found.value == "2 rows" and found.evidence["dropped"] == 1
    assert found.confidence < 0.8  # a cell that did not read: a person looks


def test_a_german_header_names_the_same_columns() -> None:
    page = [
        [(0.1, "MÜLLER WERKZEUGE GMBH")],
        [],
        [(0.1, "Bezeichnung"), (0.5, "Menge"), (0.82, "Betrag")],
        [(0.1, "Schrauben"), (0.55, "10", "r"), (0.88, "15,00", "r")],
        [(0.1, "Dübel"), (0.55, "20", "r"), (0.88, "4,50", "r")],
        [(0.1, "Summe netto"), (0.88, "19,50", "r")],
    ]
    found = extract(read(columns_pdf([page]))).fields["lines"]
    assert list(found.rows or ()) == [
        {"description": "Schrauben", "quantity": "10", "amount": "15.00"},
        {"description": "Dübel", "quantity": "20", "amount": "4.50"},
    ]


def test_a_scanned_table_is_read_with_its_rows_by_tesseract() -> None:
    found = extract(read(columns_pdf([INVOICE], scan=True), scan=True)).fields["lines"]
    assert found.value == "3 rows"
    rows = list(found.rows or ())
    assert [r["amount"] for r in rows] == ["1000.00", "80.00", "100.00"]
    assert [r["description"] for r in rows] == [r["description"] for r in ROWS]
    assert found.evidence["ocr"] < 1.0 and found.confidence <= 0.95 * found.evidence["ocr"]


STATEMENT: list[list[Placed]] = [
    [(0.1, "FIRST BANK - ACCOUNT STATEMENT")],
    [(0.1, "Opening balance: 1,000.00")],
    [],
    [(0.1, "Date"), (0.3, "Details"), (0.82, "Amount")],
    [(0.1, "2026-03-02"), (0.3, "Salary March"), (0.88, "2,500.00", "r")],
    [(0.1, "2026-03-05"), (0.3, "Rent"), (0.88, "-1,200.00", "r")],
    [(0.1, "2026-03-09"), (0.3, "Groceries"), (0.88, "-84.50", "r")],
    [(0.1, "Closing balance: {closing}")],
]


def statement(closing: str) -> list[PageInput]:
    page = [[(x, t.format(closing=closing), *a) for x, t, *a in ln] for ln in STATEMENT]
    return read(columns_pdf([page]))  # type: ignore[list-item]


def test_a_statements_transactions_take_its_opening_balance_to_its_closing_balance() -> None:
    pages = statement("2,215.50")
    found = extract(pages, "statement").fields
    assert [r["amount"] for r in found["transactions"].rows or ()] == [
        "2500.00",
        "-1200.00",
        "-84.50",
    ]
    assert found["transactions"].rows[0]["date"] == "2026-03-02"  # type: ignore[index]
    assert (found["opening_balance"].value, found["closing_balance"].value) == (
        "1000.00",
        "2215.50",
    )
    assert not [r for r in reasons(pages, "statement") if r.code == "table-balance"]


def test_a_statement_that_does_not_balance_is_a_table_balance_reason() -> None:
    (balance,) = [
        r for r in reasons(statement("2,251.50"), "statement") if r.code == "table-balance"
    ]
    assert balance.field == "transactions"
    assert balance.message == (
        "opening_balance 1,000.00 plus transactions' amount 1,215.50 is 2,215.50 but "
        "closing_balance reads 2,251.50"
    )


def test_a_check_whose_field_was_not_read_is_skipped() -> None:
    page = [*TOP, HEADER, *INVOICE[4:8]]  # no subtotal printed: no net amount to check against
    found = reasons(read(columns_pdf([page])), "invoice")
    assert not [r for r in found if r.code == "table-sum"]


ADVISORY = RULES.replace(
    'checks = [{ sum = "amount", equals = "net_amount" }]',
    'checks = [{ sum = "amount", equals = "net_amount" }]\nadvisory = true',
)


def test_an_advisory_tables_reasons_carry_the_advisory_mark() -> None:
    page = [
        *TOP,
        HEADER,
        *INVOICE[4:6],
        line("Discount voucher", "1", "", "n/a"),
        *totals("1,200.00", "120.00", "1,320.00"),
    ]
    found = reasons(read(columns_pdf([page])), "invoice", ADVISORY)
    about = [r for r in found if r.field == "lines"]
    assert {r.code for r in about} == {"table-sum", "low-confidence"}
    assert all(r.advisory for r in about)
    assert not any(r.advisory for r in found if r.field != "lines")
    plain = reasons(read(columns_pdf([page])), "invoice")
    assert not any(r.advisory for r in plain)


def test_advisory_is_a_tables_flag_and_never_with_required() -> None:
    assert types()["invoice"].get("lines").advisory is False  # type: ignore[union-attr]
    loaded = parse_declarations(tomllib.loads(ADVISORY)["fields"]["types"], ADVISORY)
    assert loaded["invoice"].get("lines").advisory is True  # type: ignore[union-attr]
    required = ADVISORY.replace("advisory = true", "advisory = true\nrequired = true")
    with pytest.raises(DeclarationError, match=r"^line 13: .*cannot be required"):
        parse_declarations(tomllib.loads(required)["fields"]["types"], required)
    scalar = RULES.replace(
        '[fields.types.invoice.fields.total_amount]\nkind = "amount"',
        '[fields.types.invoice.fields.total_amount]\nkind = "amount"\nadvisory = true',
    )
    with pytest.raises(DeclarationError, match=r"^line 9: .*only a table may be advisory"):
        parse_declarations(tomllib.loads(scalar)["fields"]["types"], scalar)


def test_undeclared_columns_a_headers_second_line_and_a_running_footer_are_passed_over() -> None:
    page = [
        *TOP,
        [(0.1, "Ref."), (0.25, "Description"), (0.5, "Qty"), (0.82, "Amount")],
        [(0.82, "(EUR)")],
        [(0.1, "A-1"), (0.25, "Widget"), (0.55, "2", "r"), (0.88, "20.00", "r")],
        [(0.1, "lot 7")],
        [(0.1, "A-2"), (0.25, "Gadget"), (0.55, "1", "r"), (0.88, "5.50", "r")],
        [(0.8, "Page 1/1")],
        [(0.25, "Printed by the accounts team"), (0.88, "99.00", "r")],
    ]
    found = extract(read(columns_pdf([page]))).fields["lines"]
    assert list(found.rows or ()) == [
        {"description": "Widget", "quantity": "2", "amount": "20.00"},
        {"description": "Gadget", "quantity": "1", "amount": "5.50"},
    ]
    assert found.evidence["dropped"] == 0 and found.confidence == pytest.approx(0.95)


def test_a_page_with_no_word_boxes_is_laid_out_from_its_text() -> None:
    text = (
        "ACME SUPPLIES LTD\n"
        "Description            Qty        Amount\n"
        "Paper, A4 box           40      1,000.00\n"
        "Toner cartridge          2         80.00\n"
        "Subtotal                        1,080.00"
    )
    found = extract([PageInput(1, text, "textract", 99.0)]).fields["lines"]
    assert [r["amount"] for r in found.rows or ()] == ["1000.00", "80.00"]
    assert found.box is None  # character columns are no place on the page


def test_a_balance_printed_as_a_row_is_no_transaction_and_a_header_is_no_label() -> None:
    page = [
        *STATEMENT[:4],
        [(0.1, "2026-03-01"), (0.3, "Balance brought forward"), (0.88, "1,000.00", "r")],
        *STATEMENT[4:],
    ]
    page = [[(x, t.format(closing="2,215.50"), *a) for x, t, *a in ln] for ln in page]
    pages = read(columns_pdf([page]))  # type: ignore[list-item]
    found = extract(pages, "statement").fields
    assert found["transactions"].value == "3 rows"
    assert "statement_date" not in found  # `Date` heads the table: no date of the statement
    assert not [r for r in reasons(pages, "statement") if r.code == "table-balance"]


def test_checks_hold_their_tolerance_and_a_required_table_not_read_is_missing() -> None:
    text = RULES.replace("tolerance = 0.01", "tolerance = 0.05").replace(
        'kind = "table"\ncolumns = [', 'kind = "table"\nrequired = true\ncolumns = ['
    )
    rules = parse_field_rules(tomllib.loads(text)["fields"], text)
    spec = rules.for_type("statement")
    assert spec is not None
    rows = [{"date": "2026-03-02", "amount": "10.00"}, {"date": "2026-03-03", "amount": "-2.50"}]
    fields = {
        "opening_balance": {"value": "100.00", "confidence": 0.9},
        "closing_balance": {"value": "107.55", "confidence": 0.9},
        "transactions": {"value": "2 rows", "rows": rows, "confidence": 0.95},
    }
    assert check_fields(fields, spec, rules) == []
    fields["closing_balance"] = {"value": "107.56", "confidence": 0.9}
    assert [r.code for r in check_fields(fields, spec, rules)] == ["table-balance"]
    del fields["transactions"]
    assert [(r.field, r.code) for r in check_fields(fields, spec, rules)] == [
        ("transactions", "missing")
    ]


def test_a_header_printed_on_two_lines_names_its_columns() -> None:
    text = RULES.replace(
        '{ name = "amount", kind = "amount", required = true },',
        '{ name = "amount", kind = "amount", labels = { en = ["paid in / out"] } },',
    )
    page = [
        [(0.1, "Date"), (0.3, "Details"), (0.8, "Paid in /")],
        [(0.8, "out")],
        [(0.1, "2026-03-02"), (0.3, "Salary March"), (0.88, "2,500.00", "r")],
        [(0.1, "2026-03-05"), (0.3, "Rent"), (0.88, "-1,200.00", "r")],
    ]
    decl = parse_declarations(tomllib.loads(text)["fields"]["types"], text)["statement"]
    found = RulesEngine().extract(read(columns_pdf([page])), decl).fields["transactions"]
    assert [r["amount"] for r in found.rows or ()] == ["2500.00", "-1200.00"]


def test_a_header_word_ocr_misread_still_names_its_column_on_a_scan() -> None:
    def words(line: int, cells: list[tuple[float, str]]) -> list[Word]:
        top = 0.1 + line * 0.03
        return [Word(t, (x, top, x + 0.012 * len(t), top + 0.02), 91.0) for x, t in cells]

    placed = [
        *words(0, [(0.1, "Descriptlon"), (0.5, "Qty"), (0.8, "Amount")]),
        *words(1, [(0.1, "Widget"), (0.52, "2"), (0.82, "20.00")]),
        *words(2, [(0.1, "Gadget"), (0.52, "1"), (0.82, "5.50")]),
    ]
    text = "Descriptlon Qty Amount\nWidget 2 20.00\nGadget 1 5.50"
    found = extract([PageInput(1, text, "tesseract", 91.0, words=tuple(placed))]).fields["lines"]
    assert list(found.rows or ()) == [
        {"description": "Widget", "quantity": "2", "amount": "20.00"},
        {"description": "Gadget", "quantity": "1", "amount": "5.50"},
    ]
    assert found.confidence == pytest.approx(0.95 * 0.95)  # the page's OCR factor


def test_a_header_with_no_row_under_it_is_no_table() -> None:
    page = [*TOP, HEADER, [], [], [], [], [], line("Paper, A4 box", "40", "25.00", "1,000.00")]
    assert "lines" not in extract(read(columns_pdf([page]))).fields


def test_an_advisory_table_goes_out_unverified_unless_its_sum_was_checked() -> None:
    decl = parse_declarations(tomllib.loads(ADVISORY)["fields"]["types"], ADVISORY)["invoice"]
    plain = types()["invoice"]
    rows = [{"description": "Cable", "amount": "40.00"}, {"description": "Plug", "amount": "60.00"}]
    table = {"value": "2 rows", "rows": rows, "confidence": 0.95}
    adds_up = {"lines": table, "net_amount": {"value": "100.00", "confidence": 0.95}}
    assert unverified_tables(adds_up, decl, []) == []
    short = {"lines": table, "net_amount": {"value": "120.00", "confidence": 0.95}}
    sum_reason = Check("table-sum", field="lines", advisory=True)
    assert unverified_tables(short, decl, [sum_reason]) == ["lines"]
    assert unverified_tables({"lines": table}, decl, []) == ["lines"]  # no net: nothing checked
    assert unverified_tables(short, plain, [sum_reason]) == []  # not advisory: it routes
