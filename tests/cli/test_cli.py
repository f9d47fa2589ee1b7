"""The `docflow` command's own behaviour: documented JSON shapes, progress, closed pipes."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from docflow.cli import JSON_SHAPES, build_parser
from docflow.cli.output import Progress


def subcommands() -> dict[str, object]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return dict(sub.choices)


def test_every_command_documents_its_json_shape_in_its_help() -> None:
    commands = subcommands()
    assert set(commands) == set(JSON_SHAPES)
    for name, parser in commands.items():
        help_text = parser.format_help()
        assert "--json prints:" in help_text, name


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal() -> None:
    out = io.StringIO()
    progress = Progress(out)
    progress.update([("a.pdf", "", "queued"), ("b.pdf", "", "queued")], 0, 2)
    progress.update([("a.pdf", "", "reading"), ("b.pdf", "", "queued")], 0, 2)
    progress.update([("a.pdf", "", "finalized"), ("b.pdf", "", "failed")], 2, 2)
    assert out.getvalue().splitlines() == [
        "a.pdf: queued (settled 0/2)",
        "b.pdf: queued (settled 0/2)",
        "a.pdf: reading (settled 0/2)",
        "a.pdf: finalized (settled 2/2)",
        "b.pdf: failed (settled 2/2)",
    ]
    assert "\x1b" not in out.getvalue()


def test_progress_redraws_in_place_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    progress = Progress(out)
    progress.update([("a.pdf", "[....] 0/4", "reading")], 0, 1)
    progress.update([("a.pdf", "[####] 4/4", "finalized")], 1, 1)
    assert out.getvalue().count("\x1b[F") == 2  # the two lines drawn first are redrawn
    assert out.getvalue().rstrip().endswith("settled 1/1")


def test_output_into_a_closed_pipe_ends_quietly(tmp_path) -> None:
    """`docflow ... | head -n 0`: the reader is gone before the first write."""
    docflow = subprocess.Popen(
        [sys.executable, "-m", "docflow.cli", "--state", str(tmp_path), "status", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    head = subprocess.run(["head", "-n", "0"], stdin=docflow.stdout, check=True)
    assert docflow.stdout is not None
    docflow.stdout.close()
    _, err = docflow.communicate(timeout=60)
    assert head.returncode == 0
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()
    assert docflow.returncode == 141  # what `cat` reports when `head` has gone


def test_inbox_refuses_an_address_the_rules_do_not_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 44 item 11: `docflow inbox not-an-address` signed an inbox link for any string."""
    from docflow.cli import main
    from docflow.local.config import StackConfig
    from docflow.local.tools.ports import free_port_base
    from docflow.rules.model import DEFAULT_RULES

    rules = tmp_path / "rules.toml"
    legal = "[stages.legal]\n"
    rules.write_text(
        DEFAULT_RULES.read_text().replace(
            legal, legal + 'escalate_after_seconds = 3600\nescalate_to = ["counsel@example.com"]\n'
        )
        + '\n[reviewers."ops@example.com"]\nnotify = "digest"\n'
    )
    state = tmp_path / "state"
    StackConfig(
        state=state,
        port_base=free_port_base(27400),  # never the default ports, though nothing listens
        extra_env={"DOCFLOW_RULES_PATH": str(rules)},
    ).save()
    monkeypatch.delenv("DOCFLOW_TABLE_NAME", raising=False)

    assert main(["--state", str(state), "inbox", "not-an-address"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and len(said.err.splitlines()) == 1
    assert "'not-an-address' is not an address the rules file" in said.err
    assert str(rules) in said.err
    # Named ones pass the check (a stage's reviewer, escalate_to, a [reviewers] entry) and
    # meet the stopped stack instead.
    for named in ("legal@example.com", "counsel@example.com", "ops@example.com"):
        assert main(["--state", str(state), "inbox", named]) == 3, named
        assert "not running" in capsys.readouterr().err
