"""After `make run`: every sample ended as it is meant to. `notes.txt` fails on purpose
(not-a-pdf); any other sample that failed is a defect, and `make run` says which and fails.

`docflow run` exits 5 when any document failed, so the Makefile alone cannot tell the sample
meant to fail from one that should not have (a second `make run` once failed its contract's
new version with internal-error, and make still ended 0).

python samples/check_outcome.py samples/ [--state DIR]   (DIR: the stack's folder, `.docflow/`)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

MEANT_TO_FAIL = {"notes.txt": "not-a-pdf"}


def outcome(docflow: list[str], name: str) -> tuple[str, str]:
    """(status, reason) of the newest run of `incoming/<name>`, from `docflow show`."""
    shown = subprocess.run(
        [*docflow, "show", f"incoming/{name}", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if shown.returncode != 0:
        return "unknown", shown.stderr.strip()
    state = json.loads(shown.stdout)["state"] or {}
    return str(state.get("status")), str(state.get("reason") or "")


def main(folder: Path, state: str | None = None) -> int:
    docflow = [str(Path(sys.executable).with_name("docflow"))]
    if state:
        docflow += ["--state", state]
    wrong = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".pdf", ".txt", ".xml"):
            continue
        status, reason = outcome(docflow, path.name)
        expected = MEANT_TO_FAIL.get(path.name)
        if expected is not None and (status, reason) != ("failed", expected):
            wrong.append(f"{path.name}: {status} {reason} (meant to fail with {expected})")
        elif expected is None and status in ("failed", "unknown"):
            wrong.append(f"{path.name}: {status} {reason}")
    for line in wrong:
        print(f"make run: sample {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="After `make run`: did every sample end as meant?")
    parser.add_argument("folder", nargs="?", default="samples", type=Path)
    parser.add_argument("--state", help="the local stack's folder (default: docflow's own)")
    args = parser.parse_args()
    sys.exit(main(args.folder, args.state))
