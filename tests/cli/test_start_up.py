"""What `docflow trace` loads before it asks anything: the CLI, the local stack's config, boto3
and the trace modules; never moto, the runtime (the rules file's model, the classifier and the
extraction engines), the PDF and image libraries or the page templates. Each of those cost the
command's start a second or more on the shared machine (bench/README.md, docs/trace.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = (
    "moto",
    "docflow.runtime",
    "docflow.extract",
    "docflow.rules",
    "jinja2",
    "pypdfium2",
    "PIL",
)

PROBE = """
import json, sys
from pathlib import Path
import docflow.cli
from docflow.cli.stack import model
from docflow.local.stack import control
control.use_stack(Path(sys.argv[1]))
model()
from docflow.cost import cost_line
from docflow.trace import history, report, text
print(json.dumps(sorted(sys.modules)))
"""


def test_the_trace_command_starts_without_the_heavy_modules(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = json.loads(done.stdout)
    heavy = sorted(
        {
            m.split(".")[0] if not m.startswith("docflow") else m
            for m in loaded
            if any(m == h or m.startswith(h + ".") for h in HEAVY)
        }
    )
    assert heavy == []
