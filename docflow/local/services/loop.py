"""One base for the stack's periodic work: a daemon thread that runs `tick()` every period.

The template's schedules and the operators' queue sampler and event consumer are each a
`Loop` with its own period. A tick that raises is printed and the loop goes on, as a schedule
that fails once still fires the next minute.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

from docflow.local.config import StackConfig


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
