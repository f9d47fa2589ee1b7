"""The commands on a stack that is not running: one line that says so and status 3, never a
traceback; `docflow up` with a port taken fails at once, naming the port and how to move the
ports; the supervisor itself exits rather than hang when it cannot listen."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from docflow.local.config import StackConfig
from docflow.local.tools.ports import free_port_base

STOPPED_LINE = "docflow: the local stack is not running; `docflow up` starts it\n"
READ_COMMANDS = [
    ["pending"],
    ["pending", "--local"],
    ["failed"],
    ["stuck", "--older-than", "1s"],
    ["show", "incoming/x.pdf"],
    ["jobs"],
    ["reprocess", "d-0123456789abcdef01234567"],
    ["inbox", "legal@example.com"],
    ["reviewers", "revoke", "legal@example.com"],
]


def docflow(
    state: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docflow.cli", "--state", str(state), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def without_aws_read_model() -> dict[str, str]:
    """A user's shell: no read model named for AWS (the test session names one)."""
    return {k: v for k, v in os.environ.items() if k != "DOCFLOW_TABLE_NAME"}


def test_read_commands_on_a_stopped_stack_say_so_in_one_line(tmp_path: Path) -> None:
    env = without_aws_read_model()
    for args in READ_COMMANDS:
        done = docflow(tmp_path, *args, env=env)
        assert (done.returncode, done.stderr, done.stdout) == (3, STOPPED_LINE, ""), args


def test_a_stack_that_stopped_under_a_command_gets_the_same_line(tmp_path: Path) -> None:
    """The ready file names a live process (this one), but nothing listens on the ports."""
    StackConfig(state=tmp_path, port_base=free_port_base(27200)).save()
    (tmp_path / "stackd.ready").write_text(str(os.getpid()))
    done = docflow(tmp_path, "pending", env=without_aws_read_model())
    assert (done.returncode, done.stderr) == (3, STOPPED_LINE)


def test_up_with_a_port_taken_fails_at_once_naming_it_and_how_to_move(tmp_path: Path) -> None:
    base = free_port_base(27300)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", base + 10))  # the review port
        holder.listen(1)
        env = {**os.environ, "DOCFLOW_LOCAL_PORT_BASE": str(base)}
        done = docflow(tmp_path, "up", env=env)
    assert done.returncode == 6, done.stderr
    assert f"port {base + 10} (review) in use by another program" in done.stderr
    # The command to copy starts this folder's stack, not the default folder's.
    move = rf"`DOCFLOW_LOCAL_PORT_BASE=\d+ docflow --state {re.escape(str(tmp_path))} up`"
    assert re.search(move, done.stderr), done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "stackd.pid").exists()  # nothing was started


def test_the_supervisor_exits_when_moto_cannot_listen(tmp_path: Path) -> None:
    config = StackConfig(state=tmp_path, port_base=free_port_base(27400))
    config.save()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", config.moto_port))
        holder.listen(1)
        done = subprocess.run(
            [sys.executable, "-m", "docflow.local.stack.stackd", "--state", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=150,
            check=False,
        )
    assert done.returncode != 0
    assert f"port {config.moto_port} (moto) in use" in done.stderr


# A process whose main thread is gone while another still runs and holds a socket, as a
# SIGKILLed stack looks for a moment when one of its threads is finishing an fsync.
_LINGERING = """
import ctypes, socket, sys, threading, time
held = socket.socket()
held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
held.bind(("127.0.0.1", int(sys.argv[1])))
held.listen(1)
threading.Thread(target=time.sleep, args=(2,)).start()
print("ready", flush=True)
ctypes.CDLL(None).pthread_exit(None)
"""


def test_up_waits_for_its_own_killed_stack_to_let_go_of_its_ports(tmp_path: Path) -> None:
    from docflow.local.stack import control
    from docflow.local.tools.ports import can_serve

    config = StackConfig(state=tmp_path, port_base=free_port_base(27500))
    config.save()
    lingering = subprocess.Popen(
        [sys.executable, "-c", _LINGERING, str(config.moto_port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert lingering.stdout is not None and lingering.stdout.readline() == "ready\n"
    (tmp_path / "stackd.pid").write_text(str(lingering.pid))
    stat = Path(f"/proc/{lingering.pid}/stat")
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":  # the leader has exited
        time.sleep(0.01)
    assert control._alive(lingering.pid)  # its other thread still holds the port
    assert not can_serve(config.moto_port)
    assert control._wait_for_dying_stack(tmp_path, config) == []
    assert not control._alive(lingering.pid) and can_serve(config.moto_port)


def _supervisor_that(
    monkeypatch: pytest.MonkeyPatch, script: str
) -> None:  # the stack's supervisor replaced by a script
    from docflow.local.stack import control

    real = subprocess.Popen

    def popen(args: list[str], **kwargs: Any) -> subprocess.Popen:
        return real([sys.executable, "-c", script], **kwargs)

    monkeypatch.setattr(control.subprocess, "Popen", popen)


def test_a_stack_that_fails_to_start_shows_this_starts_log_and_its_path_in_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docflow.local.stack import control

    state = tmp_path / "elsewhere"
    StackConfig(state=state, port_base=free_port_base(27600)).save()
    (state / "stackd.log").write_text("an earlier start's lines\n")
    _supervisor_that(monkeypatch, "print('moto: cannot open its journal'); raise SystemExit(1)")
    with pytest.raises(control.StackStartError) as failed:
        control.up(state)
    message = str(failed.value)
    assert f"(log: {state / 'stackd.log'})" in message
    assert "moto: cannot open its journal" in message
    assert "an earlier start's lines" not in message


def test_a_stack_that_does_not_start_in_time_names_the_log_in_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docflow.local.stack import control

    state = tmp_path / "elsewhere"
    StackConfig(state=state, port_base=free_port_base(27700)).save()
    _supervisor_that(monkeypatch, "import time; time.sleep(30)")
    with pytest.raises(control.StackStartError) as failed:
        control.up(state, timeout_s=1)
    assert str(state / "stackd.log") in str(failed.value)
    assert ".docflow/stackd.log" not in str(failed.value)


def test_the_way_to_move_the_ports_names_the_folder_unless_it_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docflow.local.stack import control
    from docflow.local.stack.control import ports_taken_message

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(control, "DEFAULT_STATE", Path(".docflow"))  # whatever DOCFLOW_STATE says
    taken = [("review", 8790)]
    default = ports_taken_message(StackConfig(state=Path(".docflow")), taken)
    assert re.search(r"`DOCFLOW_LOCAL_PORT_BASE=\d+ docflow up`", default), default
    kept = StackConfig(state=tmp_path / "mine")
    kept.save()  # a folder that has its ports already: they move with --port-base
    moved = ports_taken_message(kept, taken)
    assert re.search(rf"`docflow --state {re.escape(str(kept.state))} up --port-base \d+`", moved)


def test_backfill_refuses_two_files_of_one_name_with_the_usage_status(tmp_path: Path) -> None:
    """Refused before the stack is asked for (status 2: status 1 means `--timeout ran out`)."""
    for folder in ("A", "B"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "doc.pdf").write_bytes(b"%PDF-1.4")
    done = docflow(tmp_path / "state", "backfill", str(tmp_path / "A"), str(tmp_path / "B"))
    assert done.returncode == 2, done.stderr
    assert "file names given twice: doc.pdf" in done.stderr
    assert not (tmp_path / "state" / "stackd.pid").exists()


def test_a_bad_age_is_a_usage_error_even_with_the_stack_stopped(tmp_path: Path) -> None:
    done = docflow(tmp_path, "stuck", "--older-than", "5", env=without_aws_read_model())
    assert done.returncode == 2
    assert "'5' is not an age like 90s, 15m, 2h or 3d" in done.stderr
