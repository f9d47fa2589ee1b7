"""Structured JSON logs and CloudWatch metrics (embedded metric format), via Powertools.

Every log line about a document carries its id, version and run id. Page text, tokens, secrets
and detector matches are never logged: callers pass counts and keys only.
Metrics are emitted from inside steps, so a replay does not count a document twice.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.metrics import MetricUnit, single_metric

NAMESPACE = "docflow"
logger = Logger(service="docflow")


class DocLogger:
    """A logger bound to one document run, usable as the durable context's logger.

    Keys are passed per call rather than appended globally because one process hosts many
    documents' steps at once on threads (the local stack, the map's thread pool).
    """

    def __init__(self, keys: Mapping[str, Any], base: Logger = logger) -> None:
        self._keys = dict(keys)
        self._base = base

    def _extra(self, extra: Mapping[str, object] | None) -> dict[str, object]:
        return {**self._keys, **(extra or {})}

    def debug(self, msg: object, *args: object, extra: Mapping[str, object] | None = None) -> None:
        self._base.debug(msg, *args, extra=self._extra(extra), stacklevel=3)

    def info(self, msg: object, *args: object, extra: Mapping[str, object] | None = None) -> None:
        self._base.info(msg, *args, extra=self._extra(extra), stacklevel=3)

    def warning(
        self, msg: object, *args: object, extra: Mapping[str, object] | None = None
    ) -> None:
        self._base.warning(msg, *args, extra=self._extra(extra), stacklevel=3)

    def error(self, msg: object, *args: object, extra: Mapping[str, object] | None = None) -> None:
        self._base.error(msg, *args, extra=self._extra(extra), stacklevel=3)

    def exception(
        self, msg: object, *args: object, extra: Mapping[str, object] | None = None
    ) -> None:
        self._base.exception(msg, *args, extra=self._extra(extra), stacklevel=3)


def count(metric: str, value: float = 1, **dimensions: str) -> None:
    """Emit one EMF metric line now (thread-safe; no shared buffer to flush)."""
    if os.environ.get("POWERTOOLS_METRICS_DISABLED", "").lower() == "true":
        return  # single_metric does not read Powertools' own switch
    with single_metric(
        name=metric, unit=MetricUnit.Count, value=value, namespace=NAMESPACE
    ) as emitted:
        for name, dim in dimensions.items():
            emitted.add_dimension(name=name, value=dim)
