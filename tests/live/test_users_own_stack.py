"""The tests leave a stack of the user's own alone (#44.1).

`make run` leaves a stack running in `.docflow/`, and a user who followed `docflow status`
exported its endpoints; then `make test`. This plays that user: a stack in a `.docflow/` of a
home folder of its own (never this machine's default ports or folder, which another session
may hold), its endpoints and folder exported as a shell would, one supplier registered, and the
test that once wrote into that registry run from the home folder, in a pytest of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from tests.support.live_stack import free_base, running_stack

pytestmark = [pytest.mark.slow(seconds=90)]

ROOT = Path(__file__).resolve().parents[2]
ONCE_FAILED = "tests/suppliers/test_registry.py::test_the_cli_imports_lists_shows_and_removes"


def run(command: list[str], home: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=home, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def test_the_registry_test_leaves_the_users_own_registry_as_it_was(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_stack(StackConfig(home / ".docflow", port_base=free_base())) as users:
        # The user's shell: the stack's endpoints and tables (what `docflow status` prints,
        # and more), its folder, and this checkout's code first on the path.
        shell = {
            **os.environ,
            "DOCFLOW_STATE": str(users.state),
            "DOCFLOW_LOCAL_PORT_BASE": str(users.port_base),
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        }
        assert shell["AWS_ENDPOINT_URL"] == users.moto_url and "DOCFLOW_TABLE_NAME" in shell
        docflow = [sys.executable, "-m", "docflow.cli"]
        (home / "mine.csv").write_text("id,name,currency\nbom1,Bom One Ltd,EUR\n")
        done = run([*docflow, "suppliers", "import", "mine.csv", "--json"], home, shell)
        assert done.returncode == 0, done.stderr

        tests = run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                str(ROOT / ONCE_FAILED),
            ],
            home,
            shell,
        )
        assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]

        listed = run([*docflow, "suppliers", "list", "--json"], home, shell)
        assert listed.returncode == 0, listed.stderr
        assert [s["supplierId"] for s in json.loads(listed.stdout)] == ["bom1"]
