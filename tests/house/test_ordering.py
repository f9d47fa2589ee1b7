"""`make test` hands its workers whole modules, the longest first (tests/support/ordering.py):
by the seconds tests/durations.json recorded, else by `slow(seconds=N)`, else in the
collection's order; and the Makefile's xdist options keep that order (xdist's own hands out the
modules with the most tests first). Run here as `make test` runs pytest, on a folder of its
own, so the repository's modules and durations are not what is ordered."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.ordering import ROOT

CONFTEST = """
from pathlib import Path

import pytest

from tests.support.ordering import DurationRecorder, longest_first

HERE = Path(__file__).parent


def pytest_configure(config):
    config.addinivalue_line("markers", "slow(seconds): a live stack")
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(HERE / "recorded.json"), "recorder")


def pytest_collection_modifyitems(items):
    longest_first(items, HERE / "durations.json")


@pytest.fixture(autouse=True)
def ran(request):
    with (HERE / "ran.txt").open("a") as log:
        log.write(request.node.nodeid + "\\n")
"""
MODULES = {
    # Most tests: what xdist's own order starts with.
    "test_many.py": "".join(f"def test_{n}():\n    pass\n" for n in range(6)),
    "test_plain.py": "def test_one():\n    pass\n\ndef test_two():\n    pass\n",
    "test_recorded.py": "def test_long():\n    pass\n",
    "test_marked.py": (
        "import pytest\n\npytestmark = pytest.mark.slow(seconds=20)\n\n"
        "def test_stack():\n    pass\n"
    ),
    # Sleeps (for the recorder) only when told to, by a file beside it.
    "test_sleepy.py": (
        "import time\nfrom pathlib import Path\n\ndef test_sleeps():\n"
        "    if (Path(__file__).parent / 'sleep').exists():\n        time.sleep(2.5)\n"
    ),
}


def makefile_xdist(workers: int) -> list[str]:
    """The options `make test` gives pytest-xdist, with this many workers."""
    line = re.search(r"^XDIST\s*:?=(.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert line, "the Makefile names its xdist options in XDIST"
    return line.group(1).replace("$(WORKERS)", str(workers)).split()


def run(folder: Path, *options: str) -> list[str]:
    """The modules in the order one worker ran them."""
    (folder / "ran.txt").unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *options],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = (folder / "ran.txt").read_text().split()
    return list(dict.fromkeys(nodeid.split("::")[0] for nodeid in ran))


def test_the_longest_modules_go_first_and_the_makefile_keeps_the_order(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name, source in MODULES.items():
        (tmp_path / name).write_text(source)
    (tmp_path / "durations.json").write_text(json.dumps({"test_recorded.py": 50}))
    longest_first = ["test_recorded.py", "test_marked.py"]  # recorded, then declared
    unweighted = ["test_many.py", "test_plain.py", "test_sleepy.py"]  # as collected
    assert run(tmp_path, *makefile_xdist(workers=1)) == longest_first + unweighted
    assert run(tmp_path, "-n", "0") == longest_first + unweighted
    # xdist's own order, which the Makefile's options turn off: the most tests first.
    (tmp_path / "sleep").touch()
    assert run(tmp_path, "-n", "1", "--dist", "loadfile")[0] == "test_many.py"
    # What the controller recorded: the modules of two seconds and more, by path.
    recorded = json.loads((tmp_path / "recorded.json").read_text())
    assert "test_sleepy.py" in recorded and all(s >= 2 for s in recorded.values())
    assert list(recorded) == sorted(recorded)
