"""One base for the stack's periodic work: a daemon thread that runs `tick()` every period.

The template's schedules and the operators' queue sampler are each a `Loop` with its own
period; the event consumer and the batch jobs' events drain their queue as a `QueueLoop`. A
tick that raises is printed and the loop goes on, as a schedule that fails once still fires
the next minute.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

from docflow import aws
from docflow.local.config import StackConfig
from docflow.local.fidelity.sqs_long_poll import arrivals


class Loop(ABC):
    every_s = 2.0

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.stopping = threading.Event()

    def period(self) -> float:
        """Seconds between ticks; a loop whose period is configured reads it here."""
        return self.every_s

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()

    def _run(self) -> None:
        while not self.stopping.wait(self.period()):
            try:
                self.tick()
            except Exception as exc:  # a bad tick must not end the loop
                print(f"{type(self).__name__}: {exc!r}", flush=True)

    @abstractmethod
    def tick(self) -> None:
        """One pass of the loop's work."""


class QueueLoop(Loop):
    """A loop that drains one queue of the stack's moto: it ticks when moto accepts a message
    for the queue (fidelity/sqs_long_poll.py), and otherwise every `every_s` at most (a
    message whose visibility ran out comes back without a send). Polling once a second, the
    stack's queue loops were most of its requests while idle: each ReceiveMessage is
    journaled and fsynced, under moto's one lock."""

    queue = ""  # the queue's logical name in the template
    every_s = 5.0

    def __init__(self, config: StackConfig) -> None:
        super().__init__(config)
        self._url: str | None = None
        self.arrivals = arrivals(config.names(self.queue))

    @property
    def url(self) -> str:
        """The queue's URL, asked of SQS once: it never changes while the stack runs."""
        if self._url is None:
            name = self.config.names(self.queue)
            self._url = str(aws.client("sqs").get_queue_url(QueueName=name)["QueueUrl"])
        return self._url

    def stop(self) -> None:
        super().stop()
        self.arrivals.mark()  # wakes the loop to see `stopping`

    def _run(self) -> None:
        while not self.stopping.is_set():
            # Read before the tick: a message that arrives during it is not missed.
            seen = self.arrivals.seen()
            try:
                self.tick()
            except Exception as exc:  # a bad tick must not end the loop
                print(f"{type(self).__name__}: {exc!r}", flush=True)
            self.arrivals.wait_after(seen, self.period())
