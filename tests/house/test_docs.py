"""The pages a newcomer follows work as written (#44.9, #44.10): after `make run` the README
names the command where it is (`.venv/bin/docflow`: the virtualenv is not on the PATH), no page
runs docflow's code with a Python that lacks it, every picture a page shows is there, and the
pictures live with the docs, where a test run does not rewrite them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tests.support.imports import ROOT

PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# A command typed at a shell prompt, bare: not `.venv/bin/docflow`, not `$(BIN)/python`.
BARE_PYTHON = re.compile(r"(?:^|[\s;&|(])(?:\$ )?python3?(?:\s|$)")
BARE_DOCFLOW = re.compile(r"(?:^|[\s;&|(`])(?:\$ )?docflow [a-z-]+")
# A string that names a screenshots folder ("screenshots", "tests/screenshots/", ...).
FOLDER = re.compile(r"[\"'](?:[\w./-]*/)?screenshots/?[\"']")


def fenced(path: Path) -> Iterator[tuple[int, str]]:
    """Each line inside a fenced code block, with its line number."""
    inside = False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            inside = not inside
        elif inside:
            yield n, line


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def test_the_readmes_first_steps_name_docflow_where_make_run_puts_it() -> None:
    first = section((ROOT / "README.md").read_text(encoding="utf-8"), "The two commands")
    prose = re.sub(r"```.*?```", "", first, flags=re.S)  # what a command printed is no advice
    said = [span for span in re.findall(r"`([^`]+)`", prose) if BARE_DOCFLOW.match(span)]
    assert said == []
    typed = [
        (n, line)
        for n, line in fenced(ROOT / "README.md")
        if re.match(r"\s*(?:\$ )?docflow ", line)
    ]
    assert typed == []


def test_no_page_runs_docflows_code_with_a_python_that_lacks_it() -> None:
    bare = [
        f"{page.relative_to(ROOT)}:{n}: {line.strip()}"
        for page in PAGES
        for n, line in fenced(page)
        if BARE_PYTHON.search(line)
    ]
    assert bare == []


def test_every_picture_a_page_shows_is_there_and_kept_with_the_docs() -> None:
    shown = [
        (page, target)
        for page in PAGES
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", page.read_text(encoding="utf-8"))
        if "://" not in target
    ]
    assert shown
    for page, target in shown:
        picture = (page.parent / target).resolve()
        assert picture.is_file(), (str(page.relative_to(ROOT)), target)
        assert (ROOT / "tests") not in picture.parents, (str(page.relative_to(ROOT)), target)


def test_only_the_screenshot_helper_names_a_folder_for_screenshots() -> None:
    """Tests take their folder from tests/support/screenshots.py (build/screenshots/, or
    docs/screenshots/ under `make screenshots`): a test that wrote into a tracked folder of its
    own left the tree dirty after every run."""
    helper = ROOT / "tests" / "support" / "screenshots.py"
    naming = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path not in (helper, Path(__file__).resolve()) and FOLDER.search(path.read_text("utf-8"))
    ]
    assert naming == []
    assert not (ROOT / "tests" / "screenshots").exists()
