"""The `textract` (AnalyzeDocument QUERIES + TABLES) and `bedrock` engines reading a type's
declared fields and tables, against their local emulators over loopback: a test-built scanned
page with a three-row table, queries past AnalyzeDocument's 15 split into calls, throttles
retried and, past the budget, raised; a model's bad table cell costs its row, not the table."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest
from botocore.exceptions import ClientError
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from docflow import aws
from docflow.cost import PRICES, Usage, estimate
from docflow.errors import ThrottledError
from docflow.extract import PageInput, build_engine
from docflow.extract.declarations.kinds import TEXT
from docflow.extract.declarations.model import FieldDecl, TypeDecl, parse_declarations
from docflow.extract.engines.schema import field_schema
from docflow.extract.engines.textract_document import MAX_QUERY_CHARS, query_batches, query_text
from docflow.local.emulators.analyze_document import AnalyzeDocumentEmulator
from docflow.local.emulators.bedrock import BedrockEmulator
from docflow.local.emulators.declared import from_schema
from docflow.pdf import open_pdf
from docflow.pipeline.extract import meter_usage
from docflow.rules.model import DEFAULT_RULES, load_rules
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack
from tests.support.engines import Endpoint, settings_for

DECLARED = """
[fields.types.delivery.fields.invoice_number]
kind = "id"
description = "The invoice's own number, as printed."

[fields.types.delivery.fields.total_amount]
kind = "amount"
description = "Total to pay including tax."

[fields.types.delivery.fields.reference]
kind = "id"
description = "The sender's reference."
labels = { en = ["reference"] }

[fields.types.delivery.fields.lines]
kind = "table"
columns = [
  { name = "description", kind = "text", labels = { en = ["description"] }, required = true },
  { name = "quantity", kind = "number", labels = { en = ["qty", "quantity"] } },
  { name = "amount", kind = "amount", labels = { en = ["amount", "price"] } },
]
"""
DELIVERY = parse_declarations(tomllib.loads(DECLARED)["fields"]["types"], DECLARED)["delivery"]
ROWS = (
    {"description": "Paper, A4 box", "quantity": "40", "amount": "1000.00"},
    {"description": "Toner", "quantity": "25", "amount": "150.00"},
    {"description": "Stapler", "quantity": "12", "amount": "25.50"},
)
# Lines above and below the table, and the table's cells at their columns' x (in inches).
HEAD = ["ACME SUPPLIES LTD", "INVOICE", "Invoice number: INV-20931", "Reference: REF-7781"]
TABLE = [
    ("Description", "Qty", "Amount"),
    ("Paper, A4 box", "40", "1,000.00"),
    ("Toner", "25", "150.00"),
    ("Stapler", "12", "25.50"),
]
COLUMNS = (1.0, 4.0, 5.5)
FOOT = ["Total due: 1,175.50 USD"]


def table_scan(dpi: int = 150) -> bytes:
    """A scanned (image-only) letter page: a few labelled lines, a three-row table whose
    cells start at fixed columns, and the total under it."""
    image = Image.new("L", (int(8.5 * dpi), int(11 * dpi)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=int(dpi / 5))
    y = dpi
    step = int(dpi / 3.2)
    for line in HEAD:
        draw.text((dpi, y), line, fill=0, font=font)
        y += step
    y += step
    for row in TABLE:
        for x, cell in zip(COLUMNS, row, strict=True):
            draw.text((int(x * dpi), y), cell, fill=0, font=font)
        y += step
    y += step
    for line in FOOT:
        draw.text((dpi, y), line, fill=0, font=font)
        y += step
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    c.drawImage(ImageReader(image), 0, 0, width=letter[0], height=letter[1])
    c.showPage()
    c.save()
    return out.getvalue()


@pytest.fixture(scope="module")
def scanned() -> PageInput:
    with open_pdf(table_scan()) as pdf:
        png = pdf.render_png(1, 200)
    return PageInput(1, "", "tesseract", 90.0, image=lambda: png)


@pytest.fixture
def delivery_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped rules with the `delivery` type declared: the rules file the emulators take
    a declared field's labels from (as the stack's functions would)."""
    path = tmp_path / "rules.toml"
    extra = '[[document_types]]\nname = "delivery"\nkeywords = ["delivery"]\nstages = []\n'
    path.write_text(DEFAULT_RULES.read_text() + "\n" + extra + DECLARED)
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    return path


def test_textract_reads_a_field_by_query_and_a_tables_rows(
    stack: Stack, endpoint: Endpoint, scanned: PageInput
) -> None:
    emulator = AnalyzeDocumentEmulator().start()
    try:
        endpoint("TEXTRACT", emulator.url)
        result = build_engine(settings_for("textract")).extract([scanned], DELIVERY)
    finally:
        emulator.stop()
    assert result.engine == "textract"
    assert result.fields["invoice_number"].value == "INV-20931"
    assert result.fields["total_amount"].value == "1175.50"
    assert result.fields["invoice_number"].box  # the answer's geometry
    assert all(0 < f.confidence <= 0.95 for f in result.fields.values())
    lines = result.fields["lines"]
    assert lines.value == "3 rows" and lines.rows == ROWS
    assert lines.box and lines.page == 1
    # One call: three queries and TABLES together, billed as Tables + Queries.
    assert result.usage == {"analyzeDocumentPages": 1, "analyzeDocumentTablePages": 1}
    (request,) = emulator.requests
    assert request["FeatureTypes"] == ["TABLES", "QUERIES"]
    queries = request["QueriesConfig"]["Queries"]
    assert [q["Alias"] for q in queries] == ["invoice_number", "total_amount", "reference"]
    assert queries[0]["Text"] == "The invoice's own number, as printed."


def test_the_emulators_tables_are_cells_of_word_blocks(
    stack: Stack, endpoint: Endpoint, scanned: PageInput
) -> None:
    """The emulator's TABLES answer is the API's shape: CELL blocks with row and column
    indexes, their CHILD ids the page's WORD blocks, found without any declaration."""
    assert scanned.image is not None
    emulator = AnalyzeDocumentEmulator().start()
    try:
        endpoint("TEXTRACT", emulator.url)
        answer = aws.client("textract").analyze_document(
            Document={"Bytes": scanned.image()}, FeatureTypes=["TABLES"]
        )
    finally:
        emulator.stop()
    blocks = {b["Id"]: b for b in answer["Blocks"]}
    (table,) = [b for b in answer["Blocks"] if b["BlockType"] == "TABLE"]
    cells = [blocks[i] for r in table["Relationships"] for i in r["Ids"]]
    assert {(c["RowIndex"], c["ColumnIndex"]) for c in cells} == {
        (r, c) for r in range(1, 5) for c in range(1, 4)
    }
    text = {
        (c["RowIndex"], c["ColumnIndex"]): " ".join(
            blocks[i]["Text"] for r in c.get("Relationships", []) for i in r["Ids"]
        )
        for c in cells
    }
    assert all(
        blocks[i]["BlockType"] == "WORD"
        for c in cells
        for r in c.get("Relationships", [])
        for i in r["Ids"]
    )
    assert [text[(1, c)] for c in (1, 2, 3)] == ["Description", "Qty", "Amount"]
    assert [text[(4, c)] for c in (1, 2, 3)] == ["Stapler", "12", "25.50"]


def test_more_than_fifteen_queries_go_in_several_calls(
    stack: Stack, endpoint: Endpoint, scanned: PageInput
) -> None:
    notes = tuple(FieldDecl(f"note_{i}", TEXT) for i in range(20))
    wide = TypeDecl("wide", (DELIVERY.fields[0], *notes))
    emulator = AnalyzeDocumentEmulator().start()
    try:
        endpoint("TEXTRACT", emulator.url)
        result = build_engine(settings_for("textract")).extract([scanned], wide)
        # The service refuses a sixteenth query in one synchronous call.
        assert scanned.image is not None
        too_many = [{"Text": f"What is note {i}?", "Alias": f"note_{i}"} for i in range(16)]
        with pytest.raises(ClientError) as refused:
            aws.client("textract").analyze_document(
                Document={"Bytes": scanned.image()},
                FeatureTypes=["QUERIES"],
                QueriesConfig={"Queries": too_many},
            )
    finally:
        emulator.stop()
    assert refused.value.response["Error"]["Code"] == "InvalidParameterException"
    assert [len(r["QueriesConfig"]["Queries"]) for r in emulator.requests] == [15, 6]
    assert all(r["FeatureTypes"] == ["QUERIES"] for r in emulator.requests)
    assert result.fields["invoice_number"].value == "INV-20931"
    assert result.usage == {"analyzeDocumentPages": 2, "analyzeDocumentTablePages": 0}


def test_textract_throttles_are_retried_then_raised(
    stack: Stack, endpoint: Endpoint, scanned: PageInput
) -> None:
    emulator = AnalyzeDocumentEmulator(throttle_rate=0.5, seed=1).start()
    try:
        endpoint("TEXTRACT", emulator.url)
        result = build_engine(settings_for("textract")).extract([scanned], DELIVERY)
    finally:
        emulator.stop()
    assert emulator.stats.throttled > 0
    assert result.fields["lines"].rows == ROWS
    # Seed 0 draws twenty throttles first: botocore's own retries and the policy's run out.
    always = AnalyzeDocumentEmulator(throttle_rate=0.99, seed=0).start()
    try:
        endpoint("TEXTRACT", always.url)
        engine = build_engine(settings_for("textract", throttle_max_attempts=1))
        with pytest.raises(ThrottledError):
            engine.extract([scanned], DELIVERY)
    finally:
        always.stop()
    assert always.stats.answered == 0 and always.stats.throttled >= 2  # botocore retried too


def test_a_query_is_the_ascii_the_api_takes() -> None:
    plain = FieldDecl("due_date", "date")
    assert query_text(plain) == "What is the due date?"
    accented = FieldDecl("sender", TEXT, description="Le nom de l’expéditeur — tel qu’imprimé.")
    assert query_text(accented) == "Le nom de l'expediteur - tel qu'imprime."
    long = FieldDecl("terms", TEXT, description="Payment terms " * 30)
    text = query_text(long)
    assert len(text) <= MAX_QUERY_CHARS and text.endswith("terms")
    batches = query_batches([FieldDecl(f"f{i}", TEXT) for i in range(31)])
    assert [len(b) for b in batches] == [15, 15, 1]


def test_a_schema_reads_back_as_its_declaration() -> None:
    """The Converse emulator answers the declaration the tool's schema describes."""
    back = from_schema(field_schema(DELIVERY))
    assert back.names == DELIVERY.names
    assert [f.kind for f in back] == [f.kind for f in DELIVERY]
    (table,) = back.tables
    assert [(c.name, c.kind, c.required) for c in table.columns] == [
        (c.name, c.kind, c.required) for c in DELIVERY.tables[0].columns
    ]


def test_bedrock_drops_a_table_row_whose_cell_does_not_normalize(
    stack: Stack, endpoint: Endpoint
) -> None:
    emulator = BedrockEmulator(bad_answers=True).start()
    try:
        endpoint("BEDROCK_RUNTIME", emulator.url)
        engine = build_engine(settings_for("bedrock", extract_model_id="test.model-v1"))
        page = PageInput(1, "ACME SUPPLIES LTD\nInvoice number: INV-20931", "textlayer", 100.0)
        result = engine.extract([page], DELIVERY)
    finally:
        emulator.stop()
    # The emulator's bad row: prose in the quantity and amount cells.
    assert {"field": "lines", "reason": "row 1, quantity: enter a number, for example 12.5"} in (
        result.rejected
    )
    assert "lines" not in result.fields  # no row left: missing, and the checks say so
    assert result.fields["invoice_number"].value == "INV-20931"
    request = emulator.requests[-1]
    assert request["inferenceConfig"]["maxTokens"] == 1024 + 2048  # room for a table's rows


TEXT_PAGE = "\n".join(
    [
        *HEAD,
        "",
        "Description            Qty     Amount",
        "Paper, A4 box          40      1,000.00",
        "Toner                  25      150.00",
        "Stapler                12      25.50",
        "",
        *FOOT,
    ]
)


def test_bedrock_answers_a_declared_field_and_a_tables_rows(
    stack: Stack, endpoint: Endpoint, delivery_rules: Path
) -> None:
    emulator = BedrockEmulator(bad_answers=True).start()
    try:
        endpoint("BEDROCK_RUNTIME", emulator.url)
        engine = build_engine(settings_for("bedrock", extract_model_id="test.model-v1"))
        result = engine.extract([PageInput(1, TEXT_PAGE, "textlayer", 100.0)], DELIVERY)
    finally:
        emulator.stop()
    assert result.fields["reference"].value == "REF-7781"
    assert result.fields["lines"].rows == ROWS and result.fields["lines"].value == "3 rows"
    # The emulator's bad fourth row is dropped; the three read are kept.
    assert {"field": "lines", "reason": "row 4, quantity: enter a number, for example 12.5"} in (
        result.rejected
    )


def test_textract_answers_a_declared_fields_query(
    stack: Stack, endpoint: Endpoint, scanned: PageInput, delivery_rules: Path
) -> None:
    emulator = AnalyzeDocumentEmulator().start()
    try:
        endpoint("TEXTRACT", emulator.url)
        result = build_engine(settings_for("textract")).extract([scanned], DELIVERY)
    finally:
        emulator.stop()
    assert result.fields["reference"].value == "REF-7781"


def test_analyze_document_calls_are_metered_and_priced() -> None:
    usage = {"analyzeDocumentPages": 3, "analyzeDocumentTablePages": 1}
    assert meter_usage("textract", usage, pages=2) == usage  # calls, not pages: 2 pages, 3 calls
    cost = estimate(Usage(operations=0, retries=0, step_ms=0, pages={}, extra=usage))
    queries = PRICES["textract_analyze_document_usd_per_page"]
    tables = PRICES["textract_analyze_document_tables_added_usd_per_page"]
    assert cost["usdBy"]["textract"] == pytest.approx(3 * queries + tables)
    assert cost["analyzeDocumentPages"] == 3 and cost["analyzeDocumentTablePages"] == 1


def test_textract_reads_the_shipped_invoice_declaration(stack: Stack, endpoint: Endpoint) -> None:
    """Every field of the shipped `invoice` type asked by query, as `textract-expense` reads
    them from the same scanned invoice."""
    invoice = load_rules(DEFAULT_RULES).fields.types["invoice"]
    with open_pdf(pdfs.scanned_pdf(pdfs.INVOICE_WITH_FIELDS)) as pdf:
        png = pdf.render_png(1, 200)
    emulator = AnalyzeDocumentEmulator().start()
    try:
        endpoint("TEXTRACT", emulator.url)
        page = PageInput(1, "", "tesseract", 90.0, image=lambda: png)
        result = build_engine(settings_for("textract")).extract([page], invoice)
    finally:
        emulator.stop()
    values = {n: f.value for n, f in result.fields.items()}
    assert values == pdfs.INVOICE_WITH_FIELDS_VALUES
    assert result.rejected == [] and result.usage["analyzeDocumentPages"] == 1
    # The emulator answers the printed words (`1,100.00 USD`); the engine normalizes them.
    assert result.fields["total_amount"].raw != "1100.00"
