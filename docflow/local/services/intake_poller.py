"""The SQS event source mapping, played locally: the intake queue into the starter.

Like Lambda's poller it receives batches, keeps at most `intake_max_concurrency` starter
invocations in flight, deletes only the messages the starter did not report as failed, and
leaves the rest for SQS to redeliver after the visibility timeout, so the queue's redrive
policy moves a message that keeps failing to the dead-letter queue. Like it, it long-polls: an
empty receive waits until a message arrives (fidelity/sqs_long_poll.py, when moto runs in this
process) rather than for a fixed pause, so an upload is taken in as soon as it is queued.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.fidelity.sqs_long_poll import Arrivals, arrivals

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import MessageTypeDef

# The longest an idle worker waits before receiving again when nothing wakes it: a message
# whose visibility timeout ran out comes back without a send. Without moto in this process
# (nothing to wake it), the pause between empty receives.
IDLE_WAIT_S = 1.0
EMPTY_POLL_PAUSE_S = 0.3


class IntakePoller:
    def __init__(
        self, config: StackConfig, long_poll: bool = False, idle_wait_s: float = IDLE_WAIT_S
    ) -> None:
        """`long_poll`: moto's SQS runs in this process with its arrivals watched
        (sqs_long_poll.watch_sqs_arrivals), so an empty receive can wait for the next one."""
        self.config = config
        self.long_poll = long_poll
        self.idle_wait_s = idle_wait_s
        self.empty_receives = 0
        self.arrivals: Arrivals | None = None
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self.batches = 0
        self._lock = threading.Lock()
        self._receive_slot = threading.Lock()

    def start(self) -> None:
        sqs = aws.client("sqs")
        self.queue_url = sqs.get_queue_url(QueueName=self.config.names("IntakeQueue"))["QueueUrl"]
        self.queue_arn = sqs.get_queue_attributes(
            QueueUrl=self.queue_url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
        if self.long_poll:
            self.arrivals = arrivals(self.config.names("IntakeQueue"))
        for _ in range(self.config.intake_max_concurrency):
            thread = threading.Thread(target=self._worker, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        if self.arrivals is not None:
            self.arrivals.mark()  # wakes the idle workers to see `stopping`
        for thread in self.threads:
            thread.join(timeout=5)

    def _worker(self) -> None:
        while not self.stopping.is_set():
            try:
                self._one_batch()
            except Exception as exc:
                print(f"intake poller: {exc!r}", flush=True)
                self.stopping.wait(1)

    def _receive(self) -> list[MessageTypeDef]:
        """One batch, or [] after an empty receive and its wait. One worker at a time receives
        and waits (the others queue on the slot): an arrival then wakes one receiver, not
        every idle worker, each of whose empty receives moto journals and fsyncs. A worker
        with a batch leaves the slot before starting it, so the next one receives at once."""
        with self._receive_slot:
            if self.stopping.is_set():
                return []
            sqs = aws.client("sqs")
            # Read before receiving: a message that arrives between the receive and the wait
            # below still ends the wait.
            seen = self.arrivals.seen() if self.arrivals is not None else 0
            # WaitTimeSeconds=0: moto would hold its request lock for the whole wait (see
            # sqs_long_poll.py); the wait happens below, outside moto.
            answer = sqs.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=10,
                WaitTimeSeconds=0,
                AttributeNames=["All"],
            )
            messages: list[MessageTypeDef] = answer.get("Messages", [])
            if messages:
                return messages
            with self._lock:
                self.empty_receives += 1
            # stop() sets `stopping`, then wakes: a `seen` read after that wake would wait
            # out its whole bound, but then `stopping` is already set here.
            if self.arrivals is not None and not self.stopping.is_set():
                self.arrivals.wait_after(seen, self.idle_wait_s)
            else:
                self.stopping.wait(EMPTY_POLL_PAUSE_S)
            return []

    def _one_batch(self) -> None:
        messages = self._receive()
        if not messages:
            return
        sqs = aws.client("sqs")
        with self._lock:
            self.in_flight += 1
            self.batches += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            failed = self._invoke_starter(messages)
        finally:
            with self._lock:
                self.in_flight -= 1
        done = [m for m in messages if m["MessageId"] not in failed]
        for start in range(0, len(done), 10):
            chunk = done[start : start + 10]
            sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)
                ],
            )

    def _invoke_starter(self, messages: list[MessageTypeDef]) -> set[str]:
        event = {
            "Records": [
                {
                    "messageId": m["MessageId"],
                    "receiptHandle": m["ReceiptHandle"],
                    "body": m["Body"],
                    "attributes": m.get("Attributes", {}),
                    "messageAttributes": {},
                    "md5OfBody": m.get("MD5OfBody", ""),
                    "eventSource": "aws:sqs",
                    "eventSourceARN": self.queue_arn,
                    "awsRegion": "us-east-1",
                }
                for m in messages
            ]
        }
        everything = {m["MessageId"] for m in messages}
        try:
            answer = aws.invoke_client().invoke(
                FunctionName="docflow-starter", Payload=json.dumps(event).encode()
            )
        except Exception:
            return everything
        if answer.get("FunctionError"):
            return everything
        result = json.loads(answer["Payload"].read() or b"{}")
        return {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
