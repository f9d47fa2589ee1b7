"""The README's first steps, followed as written on the real local stack, the reviewer in a real
browser (issue 57.4 and 57.8): what `make run` does (make the samples, `docflow run`, check the
outcome) ends with the table the README shows, row for row; then the first review's block is
done as it says: `pending` lists the documents it counts, `mail` holds the reviewer's link, the
value it names is typed in the input it names, the button it names is pressed, and `show` says
what it promises. Then `make run` again: the samples it names as the same bytes start no run,
the others start runs that supersede the old ones, whose links answer 409.

The README is read, not copied (`tests/support/readme.py`): editing the README or the product
without the other fails here, with the README's words in the message."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.support import screenshots
from tests.support.browser import chromium, not_blank
from tests.support.live_stack import docflow_cli, http, wait_for
from tests.support.readme import (
    RunTable,
    mailed_link,
    parse_table,
    run_links,
    run_table,
    same_bytes_again,
    walkthrough,
)

pytestmark = [pytest.mark.slow(seconds=120), pytest.mark.browser, pytest.mark.live_stack]

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
# What a row says that a run decides; its cost is what it measured, so only "-" or not is kept.
COMPARED = ("document", "key", "pages", "engines", "type", "sensitive", "status", "reason")


def make_run(config: StackConfig, folder: Path) -> str:
    """`make run`'s three steps on this test's stack; what `docflow run` printed (its table and
    links on stdout, then its progress and last line on stderr)."""
    made = subprocess.run(
        [sys.executable, str(SAMPLES / "make_samples.py"), str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert made.stdout.strip()
    ran = docflow_cli(config, "run", str(folder))
    assert ran.returncode == 5, ran.stderr[-2000:]  # notes.txt fails on purpose: status 5
    checked = subprocess.run(
        [
            sys.executable,
            str(SAMPLES / "check_outcome.py"),
            str(folder),
            "--state",
            str(config.state),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    return ran.stdout + ran.stderr  # as a terminal shows them: the last line is on stderr


def as_compared(row: dict[str, str]) -> dict[str, str]:
    kept = {k: row.get(k, "") for k in COMPARED}
    kept["cost"] = "-" if row.get("cost", "-") == "-" else "$"
    return kept


def moved_on(document_id: str, waiting_at: str, timeout: float = 90) -> dict[str, Any]:
    """The document's state once its run is past the stage it waited at: ended, or waiting
    at another stage (which the README would then have to name)."""
    model = ReadModel(load_settings().table_name)
    deadline = time.monotonic() + timeout
    while True:
        state = model.show(document_id)["state"] or {}
        waiting = state.get("status") in ("pending-review", "approved")
        if not waiting or state.get("stageName") != waiting_at or time.monotonic() > deadline:
            return state
        time.sleep(0.3)


@pytest.fixture(scope="module")
def first_run(live_stack: StackConfig, tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_run(live_stack, tmp_path_factory.mktemp("samples"))


def test_make_run_ends_with_the_table_the_readme_shows(first_run: str) -> None:
    said: RunTable = run_table()
    printed = parse_table(first_run)
    by_key = {row["key"]: as_compared(row) for row in printed}
    assert sorted(by_key) == sorted(r["key"] for r in said.rows), (
        "README's table lists other samples than `make run` ran"
    )
    for row in said.rows:
        assert by_key[row["key"]] == as_compared(row), f"README's row of {row['key']}"
    assert sorted(run_links(first_run)) == sorted(said.links)
    assert said.failed_line in first_run


def test_the_first_review_as_the_readme_says(
    live_stack: StackConfig, first_run: str, tmp_path: Path
) -> None:
    steps = walkthrough()
    assert [c[0] for c in steps.commands] == ["pending", "mail", "show"]
    pending = docflow_cli(live_stack, *steps.commands[0])
    assert pending.returncode == 0, pending.stderr
    waiting = sorted(row["key"] for row in parse_table(pending.stdout))
    assert len(waiting) == steps.pending, pending.stdout
    said = sorted(r["key"] for r in run_table().rows if r["status"] == "pending-review")
    assert waiting == said
    mail = docflow_cli(live_stack, *steps.commands[1])
    assert mail.returncode == 0, mail.stderr
    key = f"incoming/{steps.document}"
    url = mailed_link(mail.stdout, steps.reviewer, key)

    shots = screenshots.folder()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        label = page.locator("label", has_text=steps.label).first
        field = page.locator(f"#{label.get_attribute('for')}")
        assert field.input_value() == "", "the README's value is typed into an empty input"
        assert page.locator(".group.field.low", has=label).count() == 1  # marked unreadable
        field.fill(steps.typed)
        page.get_by_role("button", name=steps.button, exact=True).click()
        page.wait_for_selector("h1:has-text('Document approved')")
        shot = shots / "readme-walkthrough-approved.png"
        page.screenshot(path=str(shot), full_page=True)
        assert not_blank(shot.read_bytes())

    document_id = next(r["document"] for r in run_table().rows if r["key"] == key)
    moved_on(document_id, waiting_at="fields")
    shown = docflow_cli(live_stack, *steps.commands[2])
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert f"status      {steps.status}\n" in out, out
    (line,) = [ln for ln in out.splitlines() if ln.startswith(f"{steps.field} ")]
    assert line.split()[1] == steps.value, line
    assert f"corrected by {steps.corrected_by}" in line, line
    if steps.history:
        assert "\nat " in out and " stage " in out
    if steps.cost:
        assert "\ncost " in out


def test_make_run_again_starts_runs_for_new_bytes_only(
    live_stack: StackConfig, first_run: str, tmp_path: Path
) -> None:
    said = run_table()
    before = {r["key"]: r["document"] for r in said.rows}
    runs = {
        key: wait_for(doc, {"finalized", "pending-review", "failed"})["runId"]
        for key, doc in before.items()
    }
    old_links = {
        key: mailed_link(docflow_cli(live_stack, "mail").stdout, reviewer, key)
        for key, reviewer in said.links
    }
    again = make_run(live_stack, tmp_path / "samples")
    assert {row["key"] for row in parse_table(again)} == set(before)
    unchanged = {f"incoming/{name}" for name in same_bytes_again()}
    assert unchanged and unchanged <= set(before)
    for key, doc in before.items():
        now = wait_for(doc, {"finalized", "pending-review", "failed", "archived"})["runId"]
        if key in unchanged:
            assert now == runs[key], f"{key}: the same bytes started a run"
        else:
            assert now != runs[key], f"{key}: new bytes started no run"
    # The first run's links were superseded with their runs.
    for key, url in old_links.items():
        if key not in unchanged:
            status, _ = http("GET", url)
            assert status == 409, key
