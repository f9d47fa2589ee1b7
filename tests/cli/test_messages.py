"""Messages a new user read and stumbled on (issue 57): a rules file's error as a Python repr,
`suppliers show` cutting its history mid-word, `suppliers ACTION --help` printing the group's
help, `suppliers import --replace FILE` refused, "1 rows", and a quantity's sum written as
money."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from docflow.cli import build_parser, main
from docflow.cli.queries import print_fields
from docflow.cli.suppliers import _print_history
from docflow.extract.checks.table_checks import table_checks
from docflow.extract.declarations.model import parse_declarations
from docflow.local.stack import control
from docflow.rules.model import DEFAULT_RULES, load_rules
from docflow.settings import SettingsError

BAD_KIND = '\n[fields.types.invoice.fields.weight]\nkind = "weight"\n'


def _bad_rules(tmp_path: Path) -> tuple[Path, int]:
    text = DEFAULT_RULES.read_text() + BAD_KIND
    path = tmp_path / "rules.toml"
    path.write_text(text)
    return path, len(text.splitlines()) - 1  # the table header's line


def test_a_rules_files_refusal_names_its_line_not_a_python_repr(tmp_path: Path) -> None:
    path, line = _bad_rules(tmp_path)
    with pytest.raises(SettingsError) as refused:
        load_rules(path)
    said = str(refused.value)
    assert said.startswith(f"rules file {path}: line {line}: fields.types.invoice.fields.weight")
    assert "Error(" not in said and "'" not in said.split(": ", 1)[0]


def test_up_with_a_bad_rules_file_says_so_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line = _bad_rules(tmp_path)
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    monkeypatch.setattr(control, "_wait_for_dying_stack", lambda state, config: [])
    assert main(["--state", str(tmp_path / "state"), "up"]) == 2
    err = capsys.readouterr().err
    assert f"docflow: rules file {path}: line {line}: " in err
    assert "DeclarationError" not in err


def test_a_suppliers_history_is_cut_at_a_word(capsys: pytest.CaptureFixture[str]) -> None:
    detail = (
        "replaced: iban DE89370400440532013000 added; name Acme Trading GmbH -> Acme Trading AG"
    )
    entry = {"at": "2026-12-07T10:00:00.000+00:00", "what": "replaced", "by": "ops",
             "documentId": None, "detail": detail}  # fmt: skip
    _print_history([entry])  # type: ignore[list-item]
    shown = capsys.readouterr().out.splitlines()[-1].split("  ")[-1].strip()
    assert shown.endswith("\u2026") and len(shown) <= 70
    assert detail.startswith(shown[:-1].rstrip()) and detail[len(shown[:-1].rstrip())] == " "


@pytest.mark.parametrize("action", ["import", "show", "remove", "approve", "reject", "list"])
def test_each_suppliers_action_prints_its_own_help(
    action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["suppliers", action, "--help"])
    assert done.value.code == 0
    said = capsys.readouterr().out
    assert said.startswith(f"usage: docflow suppliers {action} ")
    assert "ACTION" not in said.splitlines()[0]
    options = said.split("options:", 1)[1].split("--json prints", 1)[0]
    assert ("--replace" in options) is (action == "import")
    assert ("--reason TEXT" in options) is (action == "reject")


@pytest.mark.parametrize(
    "argv",
    [
        ["suppliers", "import", "--replace", "s.csv"],
        ["suppliers", "import", "s.csv", "--replace"],
        ["suppliers", "import", "--by", "ops", "--replace", "s.csv", "--json"],
    ],
)
def test_import_takes_its_options_before_or_after_the_file(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert (args.action, args.target, args.replace) == ("import", "s.csv", True)


def test_show_takes_json_after_the_id() -> None:
    args = build_parser().parse_args(["suppliers", "show", "acme", "--json"])
    assert (args.action, args.target, args.json) == ("show", "acme", True)


def test_a_one_row_table_is_one_row(capsys: pytest.CaptureFixture[str]) -> None:
    state = {
        "fields": {
            "lines": {"value": "1 rows", "rows": [{"description": "Paper", "amount": "10.00"}],
                      "confidence": 0.9, "page": 1},
            "items": {"value": "1 rows", "rows": [{"item": "x"}, {"item": "y"}],
                      "original": [{"item": "x"}], "correctedBy": "a@example.com",
                      "confidence": 1.0, "page": 1},
        }
    }  # fmt: skip
    print_fields(state)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "1 rows" not in out
    assert "1 row " in out and "2 rows" in out and "(was 1 row)" in out


TIMESHEET = """
[fields.types.timesheet.fields.total_hours]
kind = "number"
[fields.types.timesheet.fields.total_pay]
kind = "amount"
[fields.types.timesheet.fields.days]
kind = "table"
columns = [
  { name = "hours", kind = "number", required = true },
  { name = "pay", kind = "amount" },
]
checks = [{ sum = "hours", equals = "total_hours" }, { sum = "pay", equals = "total_pay" }]
"""


def test_a_number_columns_sum_is_written_as_a_number_and_an_amounts_as_money() -> None:
    decl = parse_declarations(tomllib.loads(TIMESHEET)["fields"]["types"], TIMESHEET)["timesheet"]
    fields = {
        "total_hours": {"value": "47"},
        "total_pay": {"value": "1000.00"},
        "days": {"rows": [{"hours": "12", "pay": "360.00"}, {"hours": "36", "pay": "1080.00"}]},
    }
    said = [r.message for r in table_checks(fields, decl)]
    assert said == [
        "days: hours adds up to 48 but total_hours reads 47",
        "days: pay adds up to 1,440.00 but total_pay reads 1,000.00",
    ]
