"""A real local stack for one scenario, and the outside views a scenario judges it by.

Every count a scenario reports is read from where the effect lands, not from the code that
caused it: executions from the durable runner's store, states and history from the read
model, mail from what SES (moto) accepted, artifacts from S3, queue depth from SQS.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _reliability.corpus import post
from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.config import StackConfig
from docflow.local.durability import runner_view
from docflow.local.stack import control
from docflow.local.tools.ports import free_port_base
from docflow.local.tools.uploads import object_created_event, put_document
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links
from tests.kit.sandbox import reset_process_state

TERMINAL = frozenset({"finalized", "archived", "failed"})
SETTLED = TERMINAL | {"pending-review"}


@dataclass
class Stack:
    config: StackConfig

    # ---- running one -------------------------------------------------------------------
    @classmethod
    @contextlib.contextmanager
    def running(cls, **options: Any) -> Iterator[Stack]:
        saved = dict(os.environ)
        folder = Path(tempfile.mkdtemp(prefix="docflow-reliability-"))
        config = StackConfig(
            state=folder / "state",
            port_base=free_port_base(20000 + (os.getpid() % 300) * 40, step=40),
            **options,
        )
        config.save()
        try:
            control.up(config.state)
            control.use_stack(config.state)
            yield cls(config)
        finally:
            control.down(config.state)
            os.environ.clear()
            os.environ.update(saved)
            reset_process_state()
            shutil.rmtree(folder, ignore_errors=True)

    @property
    def bucket(self) -> str:
        return self.config.names("DocumentBucket")

    # ---- putting documents in ----------------------------------------------------------
    def upload(self, key: str, data: bytes) -> DocumentRef:
        return put_document(self.bucket, key, data)

    def upload_all(
        self, items: Iterable[tuple[str, bytes]], workers: int = 16
    ) -> list[DocumentRef]:
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(lambda item: self.upload(*item), items))

    def redeliver(self, doc: DocumentRef) -> None:
        """One more copy of the version's S3 event on the intake queue, as at-least-once
        delivery may bring."""
        self.send_raw(json.dumps(object_created_event(doc)))

    @property
    def intake_queue(self) -> str:
        return aws.client("sqs").get_queue_url(QueueName=self.config.names("IntakeQueue"))[
            "QueueUrl"
        ]

    @property
    def dead_letter_queue(self) -> str:
        name = self.config.names("IntakeDeadLetterQueue")
        return aws.client("sqs").get_queue_url(QueueName=name)["QueueUrl"]

    def send_raw(self, body: str) -> None:
        aws.client("sqs").send_message(QueueUrl=self.intake_queue, MessageBody=body)

    def queue_depth(self) -> int:
        attributes = aws.client("sqs").get_queue_attributes(
            QueueUrl=self.intake_queue,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return int(attributes["ApproximateNumberOfMessages"]) + int(
            attributes["ApproximateNumberOfMessagesNotVisible"]
        )

    def dead_letters(self) -> list[str]:
        """The DLQ's bodies that are visible now, read without consuming them for good (each
        hidden for 30 s, then back on the queue)."""
        sqs, bodies, seen = aws.client("sqs"), [], set()
        for _ in range(20):
            got = sqs.receive_message(
                QueueUrl=self.dead_letter_queue,
                MaxNumberOfMessages=10,
                WaitTimeSeconds=0,
                VisibilityTimeout=30,
            ).get("Messages", [])
            if not got:
                break
            for message in got:
                if message["MessageId"] not in seen:
                    seen.add(message["MessageId"])
                    bodies.append(message["Body"])
        return bodies

    # ---- the read model ----------------------------------------------------------------
    @property
    def model(self) -> ReadModel:
        return ReadModel(load_settings().table_name)

    def state(self, doc: DocumentRef) -> dict[str, Any]:
        return self.model.show(doc.document_id)["state"] or {}

    def history(self, doc: DocumentRef) -> list[dict[str, Any]]:
        return self.model.show(doc.document_id)["history"]

    def wait_settled(
        self,
        docs: list[DocumentRef],
        timeout_s: float,
        statuses: frozenset[str] = SETTLED,
        on_tick: Callable[[], None] | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Each document's state once its own run is in one of `statuses`, or as it stands
        when the time is up."""
        deadline = time.monotonic() + timeout_s
        states: dict[str, dict[str, Any]] = {}
        waiting = {doc.run_id: doc for doc in docs}
        while waiting and time.monotonic() < deadline:
            # One BatchGetItem per hundred documents: polling must not load the stack it
            # measures (a GetItem and a history Query per document per tick did, in a burst).
            now = self.model.states(doc.document_id for doc in waiting.values())
            for run_id, doc in list(waiting.items()):
                state = now.get(doc.document_id) or {}
                states[run_id] = state
                if state.get("runId") == run_id and state.get("status") in statuses:
                    del waiting[run_id]
            if on_tick:
                on_tick()
            if waiting:
                time.sleep(0.5)
        return states

    # ---- the durable runner ------------------------------------------------------------
    def executions(self) -> dict[str, str]:
        """Execution name -> status of the documents' runs, straight from the runner's store
        (the pile batcher's executions, which the stack's schedule starts, are not documents)."""
        return dict(runner_view.name_and_status(data) for data in self.execution_data())

    def execution_data(self) -> list[dict[str, Any]]:
        return [
            data
            for data in runner_view.executions(self.config.state)
            if "docflow-orchestrator" in runner_view.function_of(data)
        ]

    # ---- side effects ------------------------------------------------------------------
    def mail(self) -> list[dict[str, Any]]:
        """Every message SES accepted. The stack exports them with its snapshot (2 s)."""
        time.sleep(2.5)
        path = self.config.state / "mail.json"
        return json.loads(path.read_text()) if path.exists() else []

    def mail_per_recipient_and_subject(self) -> Counter[tuple[str, str]]:
        return Counter((m["to"][0], m["subject"]) for m in self.mail())

    def artifacts(self, suffix: str) -> list[str]:
        s3 = aws.client("s3")
        keys: list[str] = []
        for page in s3.get_paginator("list_objects_v2").paginate(
            Bucket=self.config.names("ArtifactBucket"), Prefix="docs/"
        ):
            keys += [o["Key"] for o in page.get("Contents", []) if o["Key"].endswith(suffix)]
        return keys

    def stats(self) -> dict[str, Any]:
        path = self.config.state / "stats.json"
        return json.loads(path.read_text()) if path.exists() else {}

    # ---- faults ------------------------------------------------------------------------
    def kill_stack(self) -> list[int]:
        """SIGKILL every process of the stack at once: the supervisor (moto, the runner, the
        poller, the Function URL) and the functions' host, as a power cut or `kill -9` would."""
        pids = []
        for name in ("stackd.pid", "host.pid"):
            with contextlib.suppress(OSError, ValueError):
                pids.append(int((self.config.state / name).read_text()))
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # The supervisor is our child: reaped, its ports free (seconds on a loaded machine).
        deadline = time.monotonic() + 30
        while any(control._alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        return pids

    def bring_up(self) -> dict[str, Any]:
        """`docflow up` after a kill; what the stack says it recovered."""
        control.up(self.config.state)
        reset_process_state()
        return control.recovered(self.config.state)

    def kill_host(self) -> int:
        pid = int((self.config.state / "host.pid").read_text())
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        return pid


def statuses_of(states: dict[str, dict[str, Any]], docs: list[DocumentRef]) -> Counter[str]:
    return Counter(
        states.get(d.run_id, {}).get("status", "missing")
        if states.get(d.run_id, {}).get("runId") == d.run_id
        else "not-reached"
        for d in docs
    )


def history_counts(stack: Stack, docs: list[DocumentRef], status: str) -> Counter[int]:
    """How many documents have 0, 1, 2... history events of `status` in their own run."""
    return Counter(
        sum(1 for h in stack.history(d) if h["status"] == status and h["runId"] == d.run_id)
        for d in docs
    )


@dataclass
class Settled:
    """A scenario's end as the outside views show it, once its documents settled: documents
    in progress without a live execution, the pending reviews approved through their real
    links, and what was finalized, counted from history, S3 and SES."""

    executions: dict[str, str]
    orphans: list[str]
    pending: list[DocumentRef]
    approvals: list[int]
    after_approval: dict[str, dict[str, Any]]
    finalized: Counter[int]
    finalize_records: int
    mail: Counter[tuple[str, str]]

    @property
    def pending_finalized(self) -> int:
        return sum(
            1
            for d in self.pending
            if self.after_approval.get(d.run_id, {}).get("status") == "finalized"
        )

    @property
    def runs_finalized_twice(self) -> int:
        return sum(n for k, n in self.finalized.items() if k > 1)

    @property
    def finalized_runs(self) -> int:
        return sum(n for k, n in self.finalized.items() if k >= 1)

    @property
    def review_emails(self) -> int:
        return sum(self.mail.values())

    @property
    def review_emails_sent_twice(self) -> int:
        return sum(1 for n in self.mail.values() if n > 1)


def approve_pending_and_count(
    stack: Stack,
    docs: list[DocumentRef],
    states: dict[str, dict[str, Any]],
    approve_timeout_s: float,
) -> Settled:
    """No orphans, approve what is pending, count the finals: the check every scenario that
    settles a corpus makes. `states` is what `wait_settled` returned for `docs`."""
    executions = stack.executions()
    # The invariant: a document the read model shows as in progress has a live run.
    orphans = [
        d.key
        for d in docs
        if states[d.run_id].get("status") not in TERMINAL
        and executions.get(d.execution_name) != "RUNNING"
    ]
    pending = [d for d in docs if states[d.run_id].get("status") == "pending-review"]
    approvals = [post(review_url(stack, d), {"decision": "approve"}) for d in pending]
    after = stack.wait_settled(pending, approve_timeout_s, frozenset({"finalized"}))
    return Settled(
        executions=executions,
        orphans=orphans,
        pending=pending,
        approvals=approvals,
        after_approval=after,
        finalized=history_counts(stack, docs, "finalized"),
        finalize_records=len(stack.artifacts("/final.json")),
        mail=stack.mail_per_recipient_and_subject(),
    )


def review_url(stack: Stack, doc: DocumentRef, stage: int = 0) -> str:
    """The first reviewer's link for a run's stage, from the mail the stack's SES accepted:
    the read model names links by id only."""
    links = wait_for_links(stack.config.state, 1, run_id=doc.run_id, stage_index=stage)
    if not links:
        raise RuntimeError(f"no review mail for {doc.key}")
    return links[0].url
