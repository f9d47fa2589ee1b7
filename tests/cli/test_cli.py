"""The `docflow` command's own behaviour: documented JSON shapes, progress, closed pipes."""

from __future__ import annotations

import io
import subprocess
import sys

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
