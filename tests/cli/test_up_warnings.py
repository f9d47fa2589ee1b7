"""`docflow up` says what it would otherwise ignore without a word: a DOCFLOW_* variable
docflow does not read (a misspelt `DOCFLOW_RULES`), and on a running stack a rules file it does
not use (another DOCFLOW_RULES_PATH, or the file changed since the stack started)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from docflow.cli import main
from docflow.cli import stack as stack_cli
from docflow.local.config import SHIPPED_RULES, StackConfig, file_digest
from docflow.local.stack import control
from docflow.settings import known_variables, unknown_variables

ROOT = Path(__file__).resolve().parents[2]


def test_a_misspelt_variable_is_named_with_the_one_meant() -> None:
    env = {"DOCFLOW_RULES": "/x.toml", "DOCFLOW_ENRICH_ENGNE": "bedrock", "DOCFLOW_XYZZY": "1"}
    assert unknown_variables(env) == [
        ("DOCFLOW_ENRICH_ENGNE", "DOCFLOW_ENRICH_ENGINE"),
        ("DOCFLOW_RULES", "DOCFLOW_RULES_PATH"),
        ("DOCFLOW_XYZZY", None),
    ]


def test_what_docflow_reads_is_no_warning() -> None:
    env = {
        "DOCFLOW_RULES_PATH": "",
        "DOCFLOW_STATE": ".docflow",
        "DOCFLOW_LOCAL_PORT_BASE": "8800",
        "DOCFLOW_EXTRACT_ENGINE": "rules",
        "DOCFLOW_SCREENSHOTS": "/tmp/s",  # the test kit's own
        "HOME": "/root",
    }
    assert unknown_variables(env) == []


def _named_in(path: Path) -> set[str]:
    """The variables a file names, but on a line quoting `up`'s own warning (its example)."""
    lines = path.read_text(errors="replace").splitlines()
    quoted = [i for i, line in enumerate(lines) if "is not a variable docflow reads" in line]
    kept = [line for i, line in enumerate(lines) if not any(0 <= i - q <= 1 for q in quoted)]
    return set(re.findall(r"\bDOCFLOW_[A-Z0-9_]*[A-Z0-9]\b", "\n".join(kept)))


def test_every_variable_the_code_and_the_docs_name_is_one_docflow_reads() -> None:
    """So the list `up` checks against stays whole, and no page names a variable nothing
    reads (docs/fields.md named `DOCFLOW_RULES`)."""
    files = [
        *ROOT.glob("docs/*.md"),
        ROOT / "README.md",
        ROOT / "Makefile",
        ROOT / "template.yaml",
        *(p for p in ROOT.joinpath(".ci").glob("*") if p.is_file()),
        *(
            p
            for folder in ("docflow", "orchestrator", "callback_api", "status_recorder", "starter",
                           "batcher", "einvoice_rules", "tests", "bench", "conformance")
            for p in ROOT.joinpath(folder).rglob("*.py")
        ),
    ]  # fmt: skip
    here = Path(__file__).resolve()  # this file's examples are misspelt on purpose
    named = {n: p for p in files if p.exists() and p != here for n in _named_in(p)}
    unknown = {n: str(p.relative_to(ROOT)) for n, p in named.items() if n not in known_variables()}
    assert unknown == {}


def _config(tmp_path: Path, rules: Path | None) -> StackConfig:
    config = StackConfig(tmp_path / "state")
    if rules is not None:
        config.extra_env["DOCFLOW_RULES_PATH"] = str(rules)
    config.rules_digest = file_digest(config.rules_file())
    return config


def test_another_rules_path_on_a_running_stack_is_said(tmp_path: Path) -> None:
    mine, other = tmp_path / "mine.toml", tmp_path / "other.toml"
    mine.write_text("# mine\n")
    other.write_text("# other\n")
    config = _config(tmp_path, mine)
    (said,) = stack_cli.rules_changes(config, {"DOCFLOW_RULES_PATH": str(other)})
    assert str(other) in said and str(mine) in said and "docflow down" in said
    # An empty value asks for the shipped rules: not what this stack reads either.
    (said,) = stack_cli.rules_changes(config, {"DOCFLOW_RULES_PATH": ""})
    assert str(SHIPPED_RULES) in said
    assert stack_cli.rules_changes(config, {"DOCFLOW_RULES_PATH": str(mine)}) == []
    assert stack_cli.rules_changes(config, {}) == []


def test_a_rules_file_changed_under_a_running_stack_is_said(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text("# as started\n")
    config = _config(tmp_path, mine)
    assert stack_cli.rules_changes(config, {}) == []
    mine.write_text("# edited since\n")
    (said,) = stack_cli.rules_changes(config, {})
    assert "changed since the stack started" in said and str(mine) in said


def test_up_on_a_running_stack_prints_the_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine, other = tmp_path / "mine.toml", tmp_path / "other.toml"
    mine.write_text("# mine\n")
    other.write_text("# other\n")
    config = _config(tmp_path, mine)
    monkeypatch.setattr(control, "running_pid", lambda state: 4242)
    monkeypatch.setattr(stack_cli, "stack", lambda *a, **k: config)
    status: dict[str, Any] = {"running": True}
    monkeypatch.setattr(control, "status", lambda state: status)
    monkeypatch.setenv("DOCFLOW_RULES", str(other))
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(other))
    assert main(["--state", str(config.state), "up"]) == 0
    err = capsys.readouterr().err
    assert "docflow: warning: DOCFLOW_RULES is not a variable docflow reads" in err
    assert "did you mean DOCFLOW_RULES_PATH?" in err
    assert f"DOCFLOW_RULES_PATH names {other}, but the running stack reads {mine}" in err
