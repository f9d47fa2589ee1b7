"""Only what came through the reviewers' edge reaches the routes, when the stack puts CloudFront
in front of the callback API (EnableCallbackCdn, with CallbackOriginLock on).

CloudFront adds a header holding a secret the stack generated (`CallbackOriginSecret`); a
request without it, from someone who learned the Function URL and went around CloudFront and
its WAF rate rule, is refused before any route runs. The comparison takes constant time. With
no lock configured (the local stack, a stack without CloudFront) every request passes. The
secret is fetched and cached as the signing key ring is, so a warm function reads it once in
five minutes; it is never logged and never in a URL.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities import parameters

from docflow import aws
from docflow.observability import logger
from docflow.review.access.keys import CACHE_SECONDS
from docflow.settings import load_settings

HEADER = "X-Docflow-Origin"


class OriginLock:
    def __init__(self, secret_id: str) -> None:
        self.secret_id = secret_id
        self._provider: parameters.SecretsProvider | None = None

    def admits(self, sent: str | None) -> bool:
        """Whether a request carrying `sent` in the origin header may be answered."""
        if not self.secret_id:
            return True
        if not sent:
            return False
        if self._provider is None:
            self._provider = parameters.SecretsProvider(boto3_client=aws.client("secretsmanager"))
        expected = str(self._provider.get(self.secret_id, max_age=CACHE_SECONDS))
        return bool(expected) and hmac.compare_digest(sent.encode(), expected.encode())


_locks: dict[str, OriginLock] = {}


def through_the_edge(refuse: Callable[[int, str, str], Any]) -> Callable[[Any, Any], Any]:
    """A middleware for the callback API's resolver: every route's first check."""

    def check(resolver: Any, next_middleware: Callable[[Any], Any]) -> Any:
        secret_id = load_settings().origin_secret_id
        if secret_id not in _locks:  # one lock (and its cached secret) per secret, not per call
            _locks[secret_id] = OriginLock(secret_id)
        lock = _locks[secret_id]
        if not lock.admits(resolver.current_event.headers.get(HEADER)):  # case-insensitive
            logger.info("request refused: not through the reviewers' edge")
            return refuse(403, "not-through-the-edge", "open this link from your mail")
        return next_middleware(resolver)

    return check
