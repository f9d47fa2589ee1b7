"""The step configuration of a step that degrades instead of failing: a few tries with
backoff for an outage, and on the last one the step's own answer sends the document to a
person (extraction, the duplicate claim, the audit sample, the model's enrichment). One shape,
so each step says only how many tries and how long between them."""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python.config import Duration, StepConfig
from aws_durable_execution_sdk_python.retries import RetryStrategyConfig, create_retry_strategy
from aws_durable_execution_sdk_python.serdes import SerDes


def degrading_step(
    attempts: int, first_s: int, most_s: int, serdes: SerDes[Any] | None = None
) -> StepConfig:
    """`attempts` tries, waits from `first_s` doubling to `most_s` seconds between them."""
    strategy = create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=attempts,
            initial_delay=Duration.from_seconds(first_s),
            max_delay=Duration.from_seconds(most_s),
        )
    )
    return StepConfig(retry_strategy=strategy, serdes=serdes)
