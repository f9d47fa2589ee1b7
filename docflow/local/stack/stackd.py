"""The embedded local stack: everything AWS would run, on loopback, in one supervised process.

moto server          S3, DynamoDB, EventBridge, SQS, SES, Secrets Manager; every request
                     that may change them is journaled and fsynced before its answer
                     (durable_state.py), compacted into .docflow/moto.pickle
durable runner       the testing SDK's web runner, on a journal of checkpoints per
                     execution (execution_store.py); on start it re-arms what a restart
                     forgets (execution and callback timeouts) and replays every
                     unfinished execution
function host        `docflow.local.versions.router`, a child process, restarted if it dies;
                     it runs each deployed version in a worker of its own
intake poller        the SQS event source mapping: batches, a concurrency cap, partial
                     batch failures, redrive to the DLQ by receive count
schedules            the template's Schedule events (the recorder's reconcile pass and
                     review metrics, every minute; the batcher's, every few seconds)
Bedrock              the Converse and batch-inference emulators; the batch jobs' state
                     changes reach the batch jobs function through the rule's queue
Function URL         the callback API on the review port, as a Function URL calls it

python -m docflow.local.stack.stackd --state .docflow
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from docflow.local.config import StackConfig
from docflow.local.durability import execution_store, moto_state
from docflow.local.durability.durable_state import DurableMoto, MotoRecovered
from docflow.local.durability.execution_store import JournalExecutionStore
from docflow.local.fidelity import history_fidelity, request_counts, timers
from docflow.local.fidelity.callback_fidelity import close_callbacks_of_ended_executions
from docflow.local.fidelity.concurrency import widen_invocation_pool
from docflow.local.fidelity.moto_atomic import make_moto_server_serial
from docflow.local.fidelity.ses_mailbox import export_on_send
from docflow.local.fidelity.sqs_long_poll import watch_sqs_arrivals
from docflow.local.private import private_folder, private_process
from docflow.local.resources import provision
from docflow.local.services.batch_events import BatcherSchedule, BatchJobEventsLoop
from docflow.local.services.function_url import FunctionUrlFrontend
from docflow.local.services.intake_poller import IntakePoller
from docflow.local.services.operators import EventConsumer, QueueSampler
from docflow.local.services.schedules import Schedules
from docflow.local.stack import control, recovery
from docflow.local.versions.alias import resolve_aliases_at_start
from docflow.local.versions.deploy import ensure_deployed

SNAPSHOT_EVERY_S = 2.0
# How long moto's server may take to listen before the supervisor gives up on it.
MOTO_BIND_S = 30.0


class MotoService:
    def __init__(self, config: StackConfig) -> None:
        # moto loads only where it is served or patched (a second of start-up elsewhere)
        from moto.server import ThreadedMotoServer

        make_moto_server_serial()
        watch_sqs_arrivals()  # the intake poller waits on these, not on a fixed pause
        self.config = config
        self.server = ThreadedMotoServer(
            ip_address="127.0.0.1", port=config.moto_port, verbose=False
        )
        self.snapshot = config.state / "moto.pickle"
        self.durable: Any = None
        self.recovered: MotoRecovered = {}

    def start(self) -> None:
        if self.config.moto_durability == "journal":
            self.durable = DurableMoto(self.config.state)
            self.recovered = self.durable.recover()  # before the first request is served
        else:  # "snapshot": the pickle every few seconds, kept to measure against
            moto_state.restore(self.snapshot)
        mailbox = self.config.state / "mail.json"
        moto_state.export_mail(mailbox)  # what the journal's replay sent, once
        export_on_send(lambda: moto_state.export_mail(mailbox))
        # moto binds in a thread of its own: when the bind fails that thread ends and start()
        # waits forever for a ready signal. Waited for here with a bound, so the supervisor
        # exits (and `docflow up` says why) instead of hanging.
        starting = threading.Thread(target=self.server.start, daemon=True)
        starting.start()
        starting.join(MOTO_BIND_S)
        if starting.is_alive():
            raise SystemExit(
                f"moto could not listen on port {self.config.moto_port}; the local stack stops"
            )

    def save(self) -> None:
        """Called every few seconds: the snapshot or a due compaction (the mailbox is written
        as SES accepts each message)."""
        if self.durable is not None:
            self.durable.maybe_compact()
        else:
            moto_state.save(self.snapshot, fsync=False)

    def stop(self) -> None:
        self.server.stop()
        if self.durable is not None:
            self.durable.close()
        else:
            moto_state.save(self.snapshot, fsync=False)
        moto_state.export_mail(self.config.state / "mail.json")


class DurableRunner:
    def __init__(self, config: StackConfig) -> None:
        # the testing SDK loads only where the runner is served or patched
        from aws_durable_execution_sdk_python_testing.runner import WebRunner, WebRunnerConfig
        from aws_durable_execution_sdk_python_testing.stores.base import StoreType
        from aws_durable_execution_sdk_python_testing.web.server import WebServiceConfig

        self.store: JournalExecutionStore | None = None
        store_type, store_path = StoreType.SQLITE, str(config.state / "executions.sqlite")
        if config.runner_store == "journal":  # "sqlite": the SDK's own, to measure against
            self.store = JournalExecutionStore(config.state / "executions")
            store_type = StoreType.MEMORY  # replaced by self.store as the runner starts
        self.runner = WebRunner(
            WebRunnerConfig(
                web_service=WebServiceConfig(host="127.0.0.1", port=config.runner_port),
                lambda_endpoint=config.host_url,
                local_runner_endpoint=config.runner_url,
                local_runner_region="us-east-1",
                store_type=store_type,
                store_path=store_path,
            )
        )

        self.rearmed: dict[str, int] = {}
        self.state = config.state

    def start(self) -> None:
        if self.store is not None:
            with execution_store.serving(self.store):
                self.runner.start()
        else:
            self.runner.start()
        widen_invocation_pool(self.runner._executor)  # as Lambda: many invocations at once
        request_counts.count_runner_requests(self.runner._server)
        close_callbacks_of_ended_executions(self.runner._executor)
        history_fidelity.apply(self.runner._executor)  # its histories as AWS records them
        resolve_aliases_at_start(self.runner._executor, self.state)  # a run keeps its version
        threading.Thread(target=self.runner.serve_forever, daemon=True).start()
        self.rearmed = timers.rearm(self.runner._executor, self.runner._store)

    def stop(self) -> None:
        self.runner.stop()


class FunctionHost:
    """The function host child process; restarted whenever it exits while the stack runs."""

    def __init__(self, config: StackConfig, env: dict[str, str]) -> None:
        self.config, self.env = config, env
        self.process: subprocess.Popen[bytes] | None = None
        self.stopping = threading.Event()
        self.restarts = 0

    def _spawn(self) -> None:
        log = (self.config.state / "host.log").open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                *("-m", "docflow.local.versions.router"),
                *("--state", str(self.config.state)),
                *("--port", str(self.config.host_port)),
            ],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        (self.config.state / "host.pid").write_text(str(self.process.pid))

    def start(self) -> None:
        self._spawn()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while not self.stopping.is_set():
            if self.process is not None and self.process.poll() is not None:
                self.restarts += 1
                self._spawn()
            time.sleep(0.2)

    def stop(self) -> None:
        self.stopping.set()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start_bedrock_emulators(config: StackConfig) -> list[Any]:
    """Converse and batch inference on their ports; batch statuses last seconds here."""
    from docflow.local.emulators.bedrock import BedrockEmulator
    from docflow.local.emulators.bedrock_batch import WALK, BedrockBatchEmulator

    delays = dict.fromkeys(WALK, config.batch_status_s)
    minimum = int(config.function_env().get("DOCFLOW_PILE_MIN_RECORDS") or 100)
    batch = BedrockBatchEmulator(
        port=config.batch_port,
        delays=delays,
        fail_rate=config.batch_fail_rate,
        min_records=minimum,  # the service's quota, as the stack's batcher is told it
    )
    return [BedrockEmulator(port=config.converse_port).start(), batch.start()]


def aws_requests(config: StackConfig) -> dict[str, dict[str, int]]:
    """moto's and the runner's counts (this process), with the host's Invokes by function."""
    counts = request_counts.snapshot()
    try:
        url = config.host_url + "/stats"
        with urllib.request.urlopen(url, timeout=2) as answer:  # noqa: S310 - loopback only
            invokes = json.loads(answer.read()).get("invocations", {})
    except (OSError, ValueError):
        invokes = {}
    if invokes:
        counts.setdefault("lambda", {}).update({f"Invoke {fn}": n for fn, n in invokes.items()})
    return counts


def write_stats(
    config: StackConfig, poller: Any, host: FunctionHost, moto: MotoService, runner: DurableRunner
) -> None:
    """What the stack's own parts measured, for `docflow status` and the benchmarks."""
    stats = {
        "intakeInFlightPeak": poller.peak_in_flight,
        "intakeMaxConcurrency": config.intake_max_concurrency,
        "intakeBatches": poller.batches,
        "intakeEmptyReceives": poller.empty_receives,
        "hostRestarts": host.restarts,
        **(moto.durable.stats() if moto.durable is not None else {}),
        **(runner.store.stats() if runner.store is not None else {}),
        "awsRequests": aws_requests(config),
    }
    tmp = config.state / "stats.tmp"
    tmp.write_text(json.dumps(stats))
    os.replace(tmp, config.state / "stats.json")


def main() -> None:
    parser = argparse.ArgumentParser(description="docflow's embedded local stack")
    parser.add_argument("--state", default=".docflow")
    args = parser.parse_args()
    # Everything the stack and the processes it starts write in the state folder (journals,
    # sqlite stores, snapshots, logs, spans, versions) is its owner's alone.
    private_process()
    private_folder(Path(args.state))
    config = StackConfig.load(Path(args.state))
    # A port another program holds ends the start here, before anything binds or recovers
    # (`docflow up` checks too; this covers a start that raced it, or one started by hand).
    taken = control.taken_ports(config)
    if taken:
        raise SystemExit(control.ports_taken_message(config, taken))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    os.environ.update(config.client_env())
    os.environ.update(config.function_env())

    unclean = recovery.begin(config.state)
    moto = MotoService(config)
    moto.start()
    provision(config.names, sender=config.sender)
    config.create_local_only_tables()
    emulators = start_bedrock_emulators(config)
    runner = DurableRunner(config)
    ensure_deployed(config.state, {**os.environ})  # a first `up` publishes version 1
    host = FunctionHost(config, {**os.environ})
    host.start()
    config.wait_for(config.host_url + "/health")
    runner.start()
    recovery.settle(config, unclean, moto.recovered, runner.rearmed)  # before the poller runs
    poller = IntakePoller(config, long_poll=True)
    poller.start()
    frontend = FunctionUrlFrontend(config)
    frontend.start()
    schedules = Schedules(config)
    schedules.start()
    operators = [QueueSampler(config), EventConsumer(config)]  # docflow.local.services.operators
    operators += [BatchJobEventsLoop(config), BatcherSchedule(config)]  # the path for piles
    for part in operators:
        part.start()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    (config.state / "stackd.ready").write_text(str(os.getpid()))
    print(f"docflow local stack up: {json.dumps(config.describe())}", flush=True)
    while not stop.wait(SNAPSHOT_EVERY_S):
        try:
            moto.save()
        except Exception as exc:
            print(f"snapshot failed: {exc!r}", flush=True)
        write_stats(config, poller, host, moto, runner)
    (config.state / "stackd.ready").unlink(missing_ok=True)
    for name, part in (
        *(("operators", p) for p in operators),
        ("schedules", schedules),
        ("poller", poller),
        ("frontend", frontend),
        ("host", host),
        ("runner", runner),
        *(("bedrock", e) for e in emulators),
        ("moto", moto),
    ):
        began = time.monotonic()
        part.stop()
        print(f"stopped {name} in {time.monotonic() - began:.1f}s", flush=True)
    recovery.clean_stop(config.state)


if __name__ == "__main__":
    main()
