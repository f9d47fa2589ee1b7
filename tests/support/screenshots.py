"""Where the browser tests put their screenshots: `build/screenshots/` (git-ignored), so a test
run leaves the tree clean, or the folder DOCFLOW_SCREENSHOTS names. `make screenshots` names
`docs/screenshots/`, where the pictures the docs show are kept."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "screenshots"
DOCS = ROOT / "docs" / "screenshots"


def folder() -> Path:
    named = os.environ.get("DOCFLOW_SCREENSHOTS")
    path = Path(named) if named else BUILD
    path.mkdir(parents=True, exist_ok=True)
    return path
