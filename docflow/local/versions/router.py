"""The functions' host as the durable runner and the other parts see it: one port, and behind
it one worker process per version (worker_main.py), each with only its version's code.

An invocation names its function and maybe a qualifier (`POST /2015-03-31/functions/
docflow-orchestrator:3/invocations`). A numeric qualifier is the version that runs, as in
Lambda; the runner invokes an execution with the qualifier it started with, which alias.py
made the version number `live` named at the start, so a run resumes on its own version
whatever was deployed since. A durable invocation with no number (an execution started before
versions existed) is pinned to `live` at its first resume (store.pin) and stays there. Any
other call (the recorder, the starter, the callback API) runs on `live`.

Workers start on a version's first invocation and stop with the router; a version pruned
while its worker runs is refused from then on.

    python -m docflow.local.versions.router --state .docflow --port 8782
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docflow.local.versions.snapshot import WORKER_MAIN
from docflow.local.versions.store import VersionStore

_INVOKE = re.compile(r"^/2015-03-31/functions/([^/]+)/invocations$")
_FORWARDED = ("Content-Type", "X-Amz-Invocation-Type", "X-Dex-Handler-Invoke", "X-Amz-Log-Type")
_RETURNED = ("X-Amz-Function-Error", "x-amzn-RequestId", "x-amzn-ErrorType", "X-Amz-Log-Result")
INVOKE_TIMEOUT_S = 960  # past the orchestrator's 900 s, as the runner's own read timeout
START_TIMEOUT_S = 90


class NoVersion(LookupError):
    pass


def split_name(name: str) -> tuple[str, str | None]:
    """`fn`, `fn:q`, `arn:...:function:fn[:q]` -> (fn, q)."""
    base = name.rsplit(":function:", 1)[-1]
    fn, _, qualifier = base.partition(":")
    return fn, qualifier or None


class Worker:
    def __init__(self, version: int, code: Path, port_file: Path, log: Path) -> None:
        self.version, self.code, self.port_file, self.log = version, code, port_file, log
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, env: dict[str, str]) -> None:
        self.port_file.unlink(missing_ok=True)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    str(WORKER_MAIN),
                    *("--code", str(self.code)),
                    *("--port-file", str(self.port_file)),
                    *("--parent", str(os.getpid())),
                ],
                env={**env, "PYTHONPATH": "", "DOCFLOW_FUNCTION_VERSION": str(self.version)},
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.port_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the worker of version {self.version} did not start")
            time.sleep(0.05)
        self.port = int(self.port_file.read_text())

    def stop(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Router:
    def __init__(self, state: Path) -> None:
        self.state = state
        self.store = VersionStore(state)
        self.workers: dict[int, Worker] = {}
        self.locks: dict[int, threading.Lock] = {}
        self.lock = threading.Lock()
        self.invocations: dict[str, int] = {}  # Invokes routed, by function
        self.env = dict(os.environ)
        (state / "workers").mkdir(parents=True, exist_ok=True)

    def version_for(self, name: str, body: bytes, durable: bool) -> int:
        _fn, qualifier = split_name(name)
        if qualifier and qualifier.isdigit():
            version = int(qualifier)
            if self.store.get(version) is None:
                raise NoVersion(f"Function not found: {name} (no version {version})")
            return version
        if durable:
            arn = _execution_arn(body)
            pinned = self.store.pin(arn) if arn else self.store.live()
            if pinned is not None:
                return pinned
        live = self.store.live()
        if live is None:
            raise NoVersion(f"Function not found: {name} (nothing deployed: `docflow deploy`)")
        return live

    def worker(self, version: int) -> Worker:
        with self.lock:
            lock = self.locks.setdefault(version, threading.Lock())
        with lock:  # one start per version, however many invocations arrive at once
            worker = self.workers.get(version)
            if worker is None or not worker.alive():
                folder = self.state / "workers"
                worker = Worker(
                    version,
                    self.store.code_dir(version),
                    folder / f"{version}.port",
                    self.state / "host.log",
                )
                worker.start(self.env)
                self.workers[version] = worker
            return worker

    def retire_pruned(self) -> list[int]:
        """Stop the workers of versions pruned since they started; which ones it stopped."""
        with self.lock:
            gone = [v for v in self.workers if self.store.get(v) is None]
            stopped = [self.workers.pop(v) for v in gone]
        for worker in stopped:
            worker.stop()
        return gone

    def stop(self) -> None:
        for worker in list(self.workers.values()):
            worker.stop()


def _execution_arn(body: bytes) -> str | None:
    try:
        raw = json.loads(body or b"null")
    except ValueError:
        return None
    arn = raw.get("DurableExecutionArn") if isinstance(raw, dict) else None
    return str(arn) if arn else None


def make_handler(router: Router) -> type[BaseHTTPRequestHandler]:
    class RouteHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._send(200, b'{"ok": true}', {})
            elif self.path == "/stats":  # the Invokes it routed, for `docflow status`
                with router.lock:
                    counts = dict(router.invocations)
                self._send(200, json.dumps({"invocations": counts}).encode(), {})
            else:
                self._send(404, b'{"message": "not found"}', {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            match = _INVOKE.match(self.path.split("?", 1)[0])
            if not match:
                self._send(404, b'{"message": "not an Invoke path"}', {})
                return
            name = unquote(match.group(1))
            durable = self.headers.get("X-Dex-Handler-Invoke") == "true"
            with router.lock:
                fn = split_name(name)[0]
                router.invocations[fn] = router.invocations.get(fn, 0) + 1
            try:
                version = router.version_for(name, body, durable)
                worker = router.worker(version)
            except NoVersion as exc:
                refusal = json.dumps({"Type": "User", "message": str(exc)}).encode()
                self._send(404, refusal, {"x-amzn-ErrorType": "ResourceNotFoundException"})
                return
            except RuntimeError as exc:
                refusal = json.dumps({"Type": "Service", "message": str(exc)}).encode()
                self._send(503, refusal, {"x-amzn-ErrorType": "ServiceException"})
                return
            headers = {k: v for k in _FORWARDED if (v := self.headers.get(k))}
            connection = http.client.HTTPConnection("127.0.0.1", worker.port, INVOKE_TIMEOUT_S)
            try:
                connection.request("POST", self.path, body=body, headers=headers)
                answer = connection.getresponse()
                data = answer.read()
            except OSError as exc:
                # The worker died under the invocation: the caller retries, as after a crash.
                message = json.dumps({"Type": "Service", "message": f"worker: {exc}"}).encode()
                self._send(502, message, {"x-amzn-ErrorType": "ServiceException"})
                return
            finally:
                connection.close()
            returned = {k: v for k in _RETURNED if (v := answer.getheader(k))}
            returned["Content-Type"] = answer.getheader("Content-Type") or "application/json"
            self._send(answer.status, data, returned)

    return RouteHandler


def main() -> None:
    parser = argparse.ArgumentParser(description="docflow's local functions host (versions)")
    parser.add_argument("--state", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    router = Router(Path(args.state))
    server = ThreadingHTTPServer((args.host, args.port), make_handler(router))
    server.daemon_threads = True

    def stop(*_: Any) -> None:
        router.stop()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    parent = os.getppid()

    def watch() -> None:
        # A stack killed with SIGKILL cannot stop its host: the host stops itself (its
        # workers then see it gone and stop too). A pruned version's worker is stopped here.
        ticks = 0
        while os.getppid() == parent:
            time.sleep(0.5)
            ticks += 1
            if ticks % 10 == 0:
                router.retire_pruned()
        stop()

    threading.Thread(target=watch, daemon=True).start()
    print(f"functions host on {args.host}:{args.port} (versions under {args.state})", flush=True)
    try:
        server.serve_forever()
    finally:
        router.stop()


if __name__ == "__main__":
    main()
