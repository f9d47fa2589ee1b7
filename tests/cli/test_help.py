"""`docflow --help` and each command's: every option and positional explained (with units),
`--local` only where the read model could also be AWS's, the environment and the exit
statuses listed, and a `--version`."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

from docflow.cli import build_parser

QUERY_COMMANDS = {
    "pending",
    "failed",
    "stuck",
    "show",
    "reprocess",
    "jobs",
    "trace",
    "suppliers",
    "audit",
    "orders",
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    return dict(sub.choices)


def test_the_top_level_help_keeps_its_last_paragraph_and_lists_the_environment() -> None:
    text = build_parser().format_help()
    assert "Against AWS instead of the local stack, set DOCFLOW_TABLE_NAME" in text
    for variable in (
        "DOCFLOW_LOCAL_PORT_BASE",
        "DOCFLOW_STATE",
        "DOCFLOW_RULES_PATH",
        "DOCFLOW_EXTRACT_ENGINE",
        "DOCFLOW_ENRICH_ENGINE",
        "DOCFLOW_TABLE_NAME",
    ):
        assert variable in text, variable
    assert "exit status: 0 done; 2 usage error" in text
    assert "3 the local stack is not running" in text


def test_the_top_level_help_lists_each_command_once() -> None:
    # argparse lists the commands; the module docstring's synopsis stays out of the help.
    text = build_parser().format_help()
    assert "docflow up | down | status" not in text
    for name in subcommands():
        assert len(re.findall(rf"^    {name} ", text, re.M)) == 1, name


def test_every_option_and_positional_has_help_and_every_command_its_exit_statuses() -> None:
    for action in build_parser()._actions:
        assert action.help and action.help != argparse.SUPPRESS, action.dest
    for name, parser in subcommands().items():
        for action in parser._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
        assert "exit status:" in parser.format_help(), name
    run = subcommands()["run"].format_help()
    assert "--timeout SECONDS" in run and "5 a document failed" in run
    assert "1\n--timeout ran out" in run or "1 --timeout ran out" in run
    assert "AGE" in subcommands()["stuck"].format_help()
    assert "4 no such document" in subcommands()["show"].format_help()


def test_local_is_offered_only_where_it_means_something() -> None:
    for name, parser in subcommands().items():
        offered = any("--local" in a.option_strings for a in parser._actions)
        assert offered == (name in QUERY_COMMANDS), name


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.startswith("docflow ") and done.stdout.strip() != "docflow"


def test_docs_cli_md_carries_every_json_shape_and_exit_status() -> None:
    from pathlib import Path

    from docflow.cli.shapes import JSON_SHAPES

    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
    for name, shape in JSON_SHAPES.items():
        assert f"`docflow {name} --json`:\n\n```\n{shape}\n```" in page, name
    for status in ("| 3 |", "| 4 |", "| 5 |", "| 6 |", "DOCFLOW_LOCAL_PORT_BASE", "aws s3 cp"):
        assert status in page
