"""Starting, stopping and inspecting the local stack from the `docflow` command."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from docflow.local.config import StackConfig, StackDescribed, file_digest
from docflow.local.private import FOLDER_MODE, append_private, tighten, write_private

if TYPE_CHECKING:
    from docflow.local.stack.recovery import RecoveryReport

DEFAULT_STATE = Path(os.environ.get("DOCFLOW_STATE", ".docflow"))


class StackStats(TypedDict, total=False):
    """What the stack's parts measured (`stackd.write_stats`); the journals' counts only
    where the stack keeps journals; `awsRequests`: {service: {operation: count}}."""

    intakeInFlightPeak: int
    intakeMaxConcurrency: int
    intakeBatches: int
    intakeEmptyReceives: int
    hostRestarts: int
    journalBytes: int
    journalRecords: int
    journalFsyncs: int
    compactions: int
    runnerRecords: int
    runnerBytes: int
    runnerFsyncs: int
    runnerCompactions: int
    runnerLiveExecutions: int
    awsRequests: dict[str, dict[str, int]]


class StackStatus(StackDescribed):
    """`docflow up --json` without its `recovery` (docs/cli.md): running or not, the
    processes, where the stack answers, and its stats ({} while it is stopped)."""

    running: bool
    pid: int | None
    hostPid: int | None
    stats: StackStats


class StackStartError(RuntimeError):
    """The stack did not start; the message says why and what to do about it."""


def taken_ports(config: StackConfig) -> list[tuple[str, int]]:
    """The stack's ports another program listens on now."""
    from docflow.local.tools.ports import can_serve

    return [(name, port) for name, port in config.ports().items() if not can_serve(port)]


def ports_taken_message(config: StackConfig, taken: list[tuple[str, int]]) -> str:
    import shlex

    from docflow.local.tools.ports import free_port_base

    names = ", ".join(f"{port} ({name})" for name, port in taken)
    base = config.port_base
    try:
        other = str(free_port_base(base + 20, span=11, reserve=False))
    except RuntimeError:
        other = "N"
    # The command to copy names this folder, unless it is the one `docflow` uses anyway.
    folder = (
        ""
        if config.state == DEFAULT_STATE.absolute()
        else f" --state {shlex.quote(str(config.state))}"
    )
    if (config.state / "stack.json").exists():  # the folder keeps its ports: move them
        how = f"`docflow{folder} up --port-base {other}`"
    else:
        how = f"`DOCFLOW_LOCAL_PORT_BASE={other} docflow{folder} up`"
    return (
        f"port{'s' if len(taken) > 1 else ''} {names} in use by another program (another "
        "docflow stack's included), so the local stack cannot start. It listens on ports "
        f"{base} to {base + 10} (the port base and the next 10). Start it on free ones with "
        f"{how}; the state folder keeps them. Or stop the program that holds the port"
        f"{'s' if len(taken) > 1 else ''}."
    )


def _alive(pid: int) -> bool:
    _reap(pid)  # a stack this process started is its child: reap it, or it lingers as a zombie
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # A killed stack whose parent is gone is a zombie until init reaps it: dead all the same,
    # once its last thread is gone. Until then (a thread finishing an fsync under load, say)
    # the leader shows Z while the process still holds its files and sockets.
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] != "Z":
            return True
        return len(os.listdir(f"/proc/{pid}/task")) > 1
    return True


# How long `up` waits for the ports of this folder's own killed stack to be let go.
DYING_STACK_WAIT_S = 30


def _wait_for_dying_stack(state: Path, config: StackConfig) -> list[tuple[str, int]]:
    """The ports still taken once this folder's previous processes are gone (or the wait
    is over). A port taken by another program is reported at once."""
    pids = []
    for name in ("stackd.pid", "host.pid"):
        with contextlib.suppress(OSError, ValueError):
            pids.append(int((state / name).read_text()))
    deadline = time.monotonic() + DYING_STACK_WAIT_S
    taken = taken_ports(config)
    while taken and any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
        taken = taken_ports(config)
    return taken


def running_pid(state: Path = DEFAULT_STATE) -> int | None:
    ready = state / "stackd.ready"
    if not ready.exists():
        return None
    try:
        pid = int(ready.read_text().strip())
    except ValueError:
        return None
    return pid if _alive(pid) else None


def use_stack(state: Path = DEFAULT_STATE) -> StackConfig:
    """Point this process's AWS clients at the local stack."""
    config = StackConfig.load(state)
    os.environ.update(config.client_env())
    # Not the sandbox's module: it imports moto and the runtime, seconds a command need not pay.
    from docflow.local.tools.process_state import reset_process_state

    reset_process_state()
    return config


def prepare_state(state: Path) -> int:
    """The state folder made its owner's alone (docflow/local/private.py): created 0700, or,
    made before or loosened since, every folder in it 0700 and every file its owner's bits
    only. How many modes it changed; StackStartError when it cannot (a file of another user)."""
    try:
        state.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        return tighten(state)
    except OSError as exc:
        raise StackStartError(f"the state folder {state} cannot be made private: {exc}") from exc


def up(
    state: Path = DEFAULT_STATE, timeout_s: float = 120, port_base: int | None = None
) -> StackConfig:
    """Start the stack in `state` unless it runs; `port_base` moves its ports (kept in the
    folder). Raises StackStartError, at once when another program holds a port."""
    prepare_state(state)  # a running stack's folder too: `up` is how a user tightens one
    config = StackConfig.load(state)
    if running_pid(state):
        return config
    if port_base is not None:
        config.port_base = port_base
    _kill_orphaned_host(state)  # before the port check: an orphaned host holds its port
    taken = _wait_for_dying_stack(state, config)
    if taken:
        raise StackStartError(ports_taken_message(config, taken))
    use_rules_from_env(config)
    config.rules_digest = file_digest(config.rules_file())  # what a later `up` compares
    config.save()
    (state / "stackd.ready").unlink(missing_ok=True)
    log_path = state / "stackd.log"
    log = append_private(log_path)
    started_at = log.tell()  # what this start writes, not the last start's
    process = subprocess.Popen(
        [sys.executable, "-m", "docflow.local.stack.stackd", "--state", str(state)],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        # A fixed hash seed: moto's journal replays requests in a new process, and any set it
        # iterates must come out in the order it did the first time.
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0"},
    )
    write_private(state / "stackd.pid", str(process.pid))
    deadline = time.monotonic() + timeout_s
    while not running_pid(state):
        if process.poll() is not None:
            with log_path.open("rb") as written:
                written.seek(started_at)
                tail = written.read().decode(errors="replace")[-2000:]
            raise StackStartError(f"the local stack failed to start (log: {log_path}):\n{tail}")
        if time.monotonic() > deadline:
            process.kill()
            raise StackStartError(
                f"the local stack did not start in {timeout_s:.0f} s; see {log_path}"
            )
        time.sleep(0.2)
    return config


def use_rules_from_env(config: StackConfig) -> None:
    """`DOCFLOW_RULES_PATH=FILE docflow up`: the stack's functions use the user's rules file,
    and keep using it across `down`/`up` until another is named (an empty value: the shipped
    rules). Checked here, so a bad file is refused before anything starts."""
    if "DOCFLOW_RULES_PATH" not in os.environ:
        return
    raw = os.environ["DOCFLOW_RULES_PATH"].strip()
    if not raw:
        config.extra_env.pop("DOCFLOW_RULES_PATH", None)
        return
    # The rules pull in the extract engines and boto3: loaded only when a rules file is named.
    from docflow.rules.model import load_rules

    path = Path(raw).expanduser().resolve()
    load_rules(path)  # SettingsError names the file and the stage
    config.extra_env["DOCFLOW_RULES_PATH"] = str(path)


def _kill_orphaned_host(state: Path) -> None:
    """A function host whose stack was killed outlives it, holding the host port."""
    host = state / "host.pid"
    try:
        pid = int(host.read_text())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if b"docflow.local.versions.router" in cmdline or b"docflow.local.services.host" in cmdline:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5  # gone, and its port with it, before the port check
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def recovered(state: Path = DEFAULT_STATE) -> RecoveryReport:
    """What the stack's last start recovered after an unclean stop (recovery.py)."""
    from docflow.local.stack import recovery  # it imports boto3: only for `docflow up`'s report

    return recovery.read(state)


def down(state: Path = DEFAULT_STATE, timeout_s: float = 60) -> bool:
    pid_file = state / "stackd.pid"
    pid = running_pid(state) or (int(pid_file.read_text()) if pid_file.exists() else None)
    if not pid or not _alive(pid):
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
    host = state / "host.pid"
    if host.exists():
        try:
            host_pid = int(host.read_text())
            if _alive(host_pid):
                os.kill(host_pid, signal.SIGKILL)
        except (ValueError, OSError):
            pass
    return True


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def status(state: Path = DEFAULT_STATE) -> StackStatus:
    config = StackConfig.load(state)
    pid = running_pid(state)
    host = state / "host.pid"
    stats = state / "stats.json"
    return {
        "running": pid is not None,
        "pid": pid,
        "hostPid": int(host.read_text()) if pid and host.exists() else None,
        **config.describe(),
        # What the stack's parts measured: starter concurrency peak, host restarts.
        "stats": json.loads(stats.read_text()) if pid and stats.exists() else {},
    }
