"""The local stack's shared pieces: the free-port picker, the emulators' loopback base, the
periodic loop, and the imports between its rooms (the whole product's import rules are in
tests/house/test_imports.py)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from docflow.local.emulators.base import LoopbackEmulator, Reply, Request
from docflow.local.services.loop import Loop
from docflow.local.tools.ports import ephemeral_ports, free_port, free_port_base, is_free
from tests.support.imports import imported_modules

ROOT = Path(__file__).resolve().parents[2]


def test_free_port_base_skips_a_block_with_a_taken_port() -> None:
    first = free_port_base(11000, span=4)
    with socket.socket() as held:
        held.bind(("127.0.0.1", first + 3))
        assert not is_free(first + 3)
        base = free_port_base(first, span=4)
        assert base != first
        assert all(is_free(base + offset) for offset in range(4))
    assert is_free(free_port())


def test_a_block_is_never_in_the_ephemeral_range() -> None:
    # A client socket may draw any port there for a moment (CI's stack-crash test lost its
    # review port so, between its kill and its restart): a start inside it wraps round below.
    ephemeral = ephemeral_ports()
    base = free_port_base(ephemeral.start + 100, span=4, reserve=False)
    assert base + 4 <= ephemeral.start


def test_a_found_block_stays_reserved_while_its_finder_lives() -> None:
    # A stack killed and brought back leaves its ports unbound in between: another process
    # asking for a block then must not be handed them.
    first = free_port_base(11200, span=4, reserve=False)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from docflow.local.tools.ports import free_port_base; "
            f"print(free_port_base({first}, span=4), flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    try:
        assert holder.stdout is not None
        held = int(holder.stdout.readline())
        assert held == first and all(is_free(first + offset) for offset in range(4))
        assert free_port_base(first, span=4) != first  # free to bind, but reserved
        mine = free_port_base(first, span=4)
        assert free_port_base(first, span=4) not in (first, mine)  # nor twice in one process
    finally:
        holder.communicate("")
    assert free_port_base(first, span=4, reserve=False) == first  # released with its holder


class _Echo(LoopbackEmulator):
    """An API that answers with what it was asked, refusing a seeded share as throttled."""

    def handle(self, request: Request) -> Reply:
        if self.draw_throttle():
            return Reply(429, {"message": "slow down"}, {"x-amzn-ErrorType": "Throttling"})
        target = request.header("x-amz-target")
        return Reply(200, {"path": request.path, "target": target, "body": request.body.decode()})


def _post(url: str, body: bytes) -> tuple[int, dict[str, str], dict[str, str]]:
    req = urllib.request.Request(url, data=body, headers={"X-Amz-Target": "Echo.Call"})
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), json.loads(refused.read())


def test_an_emulator_on_the_base_is_only_its_api() -> None:
    emulator = _Echo().start()
    try:
        status, headers, answer = _post(emulator.url + "/op", b"hello")
    finally:
        emulator.stop()
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert answer == {"path": "/op", "target": "Echo.Call", "body": "hello"}


def test_the_bases_throttling_is_seeded() -> None:
    def refusals(seed: int) -> list[int]:
        emulator = _Echo(throttle_rate=0.5, seed=seed).start()
        try:
            return [_post(emulator.url + "/", b"")[0] for _ in range(12)]
        finally:
            emulator.stop()

    first = refusals(7)
    assert first == refusals(7)
    assert 429 in first and 200 in first
    with pytest.raises(ValueError, match="throttle_rate"):
        _Echo(throttle_rate=1.0)


class _Flaky(Loop):
    every_s = 0.01

    def __init__(self, config: StackConfig) -> None:
        super().__init__(config)
        self.ticks = 0
        self.survived = threading.Event()

    def tick(self) -> None:
        self.ticks += 1
        if self.ticks == 1:
            raise RuntimeError("a bad tick")
        self.survived.set()


def test_a_tick_that_raises_does_not_end_the_loop(tmp_path: Path) -> None:
    loop = _Flaky(StackConfig(state=tmp_path))
    loop.start()
    try:
        assert loop.survived.wait(timeout=30)
    finally:
        loop.stop()


# What each room of docflow/local may import of docflow/local (its __init__ says the same).
BASE = {"config", "resources", "private"}  # private: the state folder's modes (0700/0600)
MAY_IMPORT = {
    "emulators": {"emulators"},
    "fidelity": BASE | {"fidelity"},
    "durability": BASE | {"fidelity", "durability"},
    "tools": BASE | {"fidelity", "tools"},
    "services": BASE | {"fidelity", "durability", "tools", "services"},
    # Function versions: snapshots of the product, and the router that runs each apart.
    "versions": BASE | {"durability", "tools", "services", "versions"},
    "stack": BASE
    | {"fidelity", "durability", "tools", "services", "stack", "emulators", "versions"},
}


def test_imports_in_docflow_local_run_downward() -> None:
    local = ROOT / "docflow" / "local"
    wrong = {}
    for room, allowed in MAY_IMPORT.items():
        for path in (local / room).glob("*.py"):
            used = {
                m.split(".")[2]
                for m in imported_modules(path)
                if m.startswith("docflow.local.") and len(m.split(".")) > 2
            }
            if used - allowed:
                wrong[f"{room}/{path.name}"] = sorted(used - allowed)
    assert wrong == {}
    assert {p.name for p in local.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(
        MAY_IMPORT
    )
