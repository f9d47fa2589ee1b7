"""Throttles are retried with exponential backoff and full jitter inside a bounded budget.

Other errors pass straight through so the batch step (and its own retry policy) sees them.
tenacity does the waiting: a well-kept library for exactly this, rather than a loop of our own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from botocore.exceptions import ClientError
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from docflow import observability
from docflow.errors import ThrottledError
from docflow.pdf import OpenPdf
from docflow.readers.base import PageReader, PageText
from docflow.settings import Settings

T = TypeVar("T")

THROTTLE_CODES = frozenset(
    {
        "ThrottlingException",
        "Throttling",
        "ProvisionedThroughputExceededException",
        "TooManyRequests",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "SlowDown",
    }
)


def is_throttle(exc: BaseException) -> bool:
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        return error.get("Code") in THROTTLE_CODES or status == 429
    return False


@dataclass(frozen=True)
class ThrottlePolicy:
    max_attempts: int = 8
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0

    @classmethod
    def from_settings(cls, settings: Settings) -> ThrottlePolicy:
        """The one budget every throttled AWS call shares (readers, fields, pages, the model)."""
        return cls(
            max_attempts=settings.throttle_max_attempts,
            base_delay_s=settings.throttle_base_delay_s,
            max_delay_s=settings.throttle_max_delay_s,
        )

    def call(self, fn: Callable[[], T], on_throttle: Callable[[], None] | None = None) -> T:
        retrying = Retrying(
            retry=retry_if_exception(is_throttle),
            wait=wait_random_exponential(multiplier=self.base_delay_s, max=self.max_delay_s),
            stop=stop_after_attempt(self.max_attempts),
            before_sleep=(lambda _state: on_throttle()) if on_throttle else None,
        )
        try:
            return retrying(fn)
        except RetryError as exc:
            raise ThrottledError(
                f"still throttled after {self.max_attempts} attempts"
            ) from exc.last_attempt.exception()


class ThrottleRetryingReader:
    """Wraps any reader; counts throttles so benchmarks and logs can report them."""

    def __init__(self, inner: PageReader, policy: ThrottlePolicy) -> None:
        self.inner = inner
        self.policy = policy
        self.name = inner.name

    def read(self, pdf: OpenPdf, page: int) -> PageText:
        return self.policy.call(lambda: self.inner.read(pdf, page), self._throttled)

    def _throttled(self) -> None:
        # The engine that was refused is the fallback behind `auto`, or the reader itself.
        engine = getattr(getattr(self.inner, "ocr", None), "name", None) or self.name
        observability.count("ReaderThrottles", engine=engine)
