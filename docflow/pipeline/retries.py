"""A step that degrades instead of failing: a few tries with backoff for an outage, and on the
last one the step's own answer sends the document to a person (extraction, the duplicate claim,
the audit sample, the model's enrichment). One record states the tries once: the retry
strategy the SDK runs and the body's "is this my last try?" both read it, so they cannot
drift apart.

    EXTRACT = Degrading(attempts=3, first_s=5, most_s=60)
    EXTRACT_STEP = EXTRACT.config(RecordSerDes(Extracted))
    ...
    except Exception:
        if not EXTRACT.last(step):
            raise                        # the SDK retries it
        return <what sends it to a person>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aws_durable_execution_sdk_python import StepContext
from aws_durable_execution_sdk_python.config import Duration, StepConfig
from aws_durable_execution_sdk_python.retries import RetryStrategyConfig, create_retry_strategy
from aws_durable_execution_sdk_python.serdes import SerDes


@dataclass(frozen=True)
class Degrading:
    """`attempts` tries, waits from `first_s` doubling to `most_s` seconds between them."""

    attempts: int
    first_s: int
    most_s: int

    def config(self, serdes: SerDes[Any] | None = None) -> StepConfig:
        strategy = create_retry_strategy(
            RetryStrategyConfig(
                max_attempts=self.attempts,
                initial_delay=Duration.from_seconds(self.first_s),
                max_delay=Duration.from_seconds(self.most_s),
            )
        )
        return StepConfig(retry_strategy=strategy, serdes=serdes)

    def last(self, step: StepContext) -> bool:
        """Whether this try is the last the strategy gives (the body degrades instead of
        raising). `attempt` counts from 1."""
        return step.attempt >= self.attempts
