"""`docflow suppliers import` of the files people have (issue 43 item 2, issue 44 items 2 and
3), through the CLI on moto: the docs' example imports as the docs print it; what a German or
French spreadsheet saves (`;`, a BOM, Windows-1252) imports; a name a spreadsheet would run as
a formula, or that reorders itself on screen, is refused naming the row; a supplier registered
already changes only with --replace, which says what changes; a file that is not there, a
folder or a binary file gives one line naming it, exit 2, and the documented JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docflow.cli import main
from docflow.settings import load_settings
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, OTHER_VAT
from tests.support.aws import Stack

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = DOCS / "examples" / "suppliers.csv"
# Who the CLI runs as against moto: the principal its STS names for the tests' credentials.
OPERATOR = "arn:aws:sts::123456789012:user/moto"


def store() -> SupplierStore:
    return SupplierStore(load_settings().supplier_table)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["suppliers", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_docs_example_imports_as_the_docs_print_it(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    page = (DOCS / "suppliers.md").read_text(encoding="utf-8")
    assert "\n".join("    " + line for line in text.splitlines()) in page  # kept in sync
    code, out, err = run(capsys, "import", str(EXAMPLE), "--json")
    assert code == 0, err
    assert json.loads(out)["imported"] == 3
    blauwal = store().get("blauwal")
    assert blauwal is not None and blauwal.ids["iban"] == (BLAUWAL_IBAN.replace(" ", ""),)
    assert blauwal.aliases == ("Blauwal", "Blauwal Logistik")
    riviere = store().get("riviere")
    assert riviere is not None and riviere.name == "Atelier Rivière SARL"
    assert riviere.ids == {"siret": ("73282932000074",)}
    (entry,) = store().history_of("blauwal")
    assert entry.what == "imported" and entry.by == OPERATOR  # who moto's STS says runs it


@pytest.mark.parametrize(
    "encoding,delimiter",
    [("utf-8-sig", ","), ("utf-8-sig", ";"), ("cp1252", ";"), ("cp1252", ",")],
)
def test_what_a_spreadsheet_saves_imports(
    stack: Stack,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    encoding: str,
    delimiter: str,
) -> None:
    d = delimiter
    rows = [
        f"id{d}name{d}aliases{d}vat{d}currency",
        f'creme{d}Café Crème SARL{d}"Crème;Café Crème"{d}{OTHER_VAT}{d}EUR',
        f"mueller{d}Müller Straßenbau GmbH{d}{d}{BLAUWAL_VAT}{d}EUR",
    ]
    path = tmp_path / "export.csv"
    path.write_bytes(("\r\n".join(rows) + "\r\n").encode(encoding))
    code, _, err = run(capsys, "import", str(path))
    assert code == 0, err
    creme, mueller = store().get("creme"), store().get("mueller")
    assert creme is not None and creme.name == "Café Crème SARL"
    assert creme.aliases == ("Crème", "Café Crème")
    assert mueller is not None and mueller.name == "Müller Straßenbau GmbH"
    assert mueller.ids == {"vat": (BLAUWAL_VAT,)}


@pytest.mark.parametrize(
    "name,why",
    [
        ('"=HYPERLINK(""http://evil.example"",""Blauwal"")"', "starts with '='"),
        ("+SUM(A1)", "starts with '+'"),
        ("@cmd", "starts with '@'"),
        ("-1+2", "starts with '-'"),
        ("Blauwal\u202eHbmG", "U+202E"),
    ],
)
def test_a_name_a_spreadsheet_would_run_or_reorder_is_refused_naming_the_row(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, why: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(f"id,name\nfine,Fine Ltd\nbad,{name}\n", encoding="utf-8")
    code, out, err = run(capsys, "import", str(path), "--json")
    answer = json.loads(out)
    assert code == 2 and answer["row"] == 3 and why in answer["error"]
    assert "row 3: name" in err and store().all() == []
    alias = tmp_path / "alias.csv"
    alias.write_text('id,name,aliases\nok,Ok Ltd,"Ok;@SUM(1)"\n', encoding="utf-8")
    code, out, _ = run(capsys, "import", str(alias), "--json")
    answer = json.loads(out)
    assert code == 2 and answer["row"] == 2 and answer["error"].startswith("row 2: aliases")


def test_a_registered_supplier_changes_only_with_replace(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.csv"
    path.write_text(f"id,name,vat,currency\nblauwal,Blauwal GmbH,{BLAUWAL_VAT},EUR\n")
    assert run(capsys, "import", str(path))[0] == 0
    path.write_text(
        f"id,name,iban,currency\nnew,New Ltd,,EUR\nblauwal,Blauwal AG,{BLAUWAL_IBAN},EUR\n"
    )
    code, out, err = run(capsys, "import", str(path), "--json")
    answer = json.loads(out)
    assert code == 2 and answer["row"] == 3 and "row 3 (blauwal)" in err
    (existing,) = answer["existing"]
    assert existing["supplierId"] == "blauwal"
    assert "name: 'Blauwal GmbH' -> 'Blauwal AG'" in existing["changes"]
    assert "id added iban:DE•••• 3000" in existing["changes"]
    assert f"id removed vat:{BLAUWAL_VAT}" in existing["changes"]
    # nothing of the file was written
    assert store().get("new") is None
    kept = store().get("blauwal")
    assert kept is not None and kept.name == "Blauwal GmbH"

    code, out, _ = run(capsys, "import", str(path), "--replace")
    assert code == 0 and "replaced row 3 blauwal: name: 'Blauwal GmbH' -> 'Blauwal AG'" in out
    now = store().get("blauwal")
    assert now is not None and now.name == "Blauwal AG" and "vat" not in now.ids
    assert store().holder(f"vat:{BLAUWAL_VAT}") is None  # the dropped id is released
    whats = [(e.what, e.by) for e in store().history_of("blauwal")]
    assert whats == [("imported", OPERATOR), ("replaced", OPERATOR)]


def test_a_file_that_cannot_be_read_gives_one_line_naming_it(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "scan.pdf"
    binary.write_bytes(b"%PDF-1.4\n%\xf5\xe2\xe3\xcf\n1 0 obj\x00\x00<<>>\n" * 20)
    cases = {
        tmp_path / "missing.csv": "no such file",
        tmp_path: "is a folder",
        binary: "is not a text file",
    }
    for path, said in cases.items():
        code, out, err = run(capsys, "import", str(path))
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and str(path) in err and said in err, err
        code, out, err = run(capsys, "import", str(path), "--json")
        assert code == 2 and json.loads(out) == {
            "error": f"{path}: {said}" + ("" if said != "is a folder" else ", not a CSV file"),
            "row": None,
        }
    assert store().all() == []
