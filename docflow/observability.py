"""Structured JSON logs and CloudWatch metrics (embedded metric format), via Powertools.

Every log line about a document carries its id, version and run id. Page text, tokens, secrets
and detector matches are never logged: callers pass counts and keys only.
Metrics are emitted from inside steps, so a replay does not count a document twice.
`METRICS` lists every metric the code emits with its dimension names; the dashboard and the
alarms in template.yaml may name only these (a template test checks). Powertools adds the
`service` dimension (POWERTOOLS_SERVICE_NAME) to every one, so CloudWatch knows each metric by
its own dimensions plus `service`.

On the local stack (`DOCFLOW_METRICS_FILE` set) each data point is also appended to a JSON
Lines file, which the local dashboard draws; CloudWatch plays that part in AWS.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.metrics import MetricUnit, single_metric

NAMESPACE = "docflow"
SERVICE_DIMENSION = "service"
logger = Logger(service="docflow")

# metric name -> its dimension names (besides `service`), and its unit.
METRICS: dict[str, tuple[tuple[str, ...], str]] = {
    "DocumentsReceived": ((), "Count"),
    "DocumentsFinalized": ((), "Count"),
    "DocumentsArchived": ((), "Count"),
    "DocumentsFailed": ((), "Count"),
    "DocumentsFailedByReason": (("reason",), "Count"),
    "PagesRead": (("engine",), "Count"),
    # A reader call refused with a throttle and retried; a wait for a slot of the
    # cross-execution cap (the cap was full when the call wanted to start).
    "ReaderThrottles": (("engine",), "Count"),
    "ReaderCapWaits": (("engine",), "Count"),
    "PendingReviews": ((), "Count"),
    "OverdueReviews": ((), "Count"),
    "OldestPendingReviewSeconds": ((), "Seconds"),
    "ExecutionsReconciled": ((), "Count"),
    # The dollar estimate of each settled document (docflow.cost), summed per day and type.
    "DocumentCostUsd": (("docType",), "None"),
    "DomainEventsPublished": (("detailType",), "Count"),
    # Model tokens the field-extraction engine used (Bedrock), for cost.
    "ExtractInputTokens": (("engine",), "Count"),
    "ExtractOutputTokens": (("engine",), "Count"),
    # Model tokens the enrich step used, by mode (on-demand, batch); an admission that found
    # the tokens-per-minute budget spent and made its execution wait.
    "EnrichInputTokens": (("mode",), "Count"),
    "EnrichOutputTokens": (("mode",), "Count"),
    "EnrichBudgetWaits": ((), "Count"),
    # The bank-details check's verdict per invoice checked (docflow.suppliers.bank): the
    # dashboards' shares of each (what holds, what passes, what could not be read).
    "BankDetailsChecks": (("verdict",), "Count"),
    # Fields of a learned layout a review suspended (it disagreed with an established record,
    # docflow.suppliers.trust): they read nothing until an operator resets them, so it alarms.
    "LayoutFieldsSuspended": ((), "Count"),
}
_local_lock = threading.Lock()


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
    names, unit = METRICS[metric]  # a KeyError here is a metric the dashboard cannot know
    if set(dimensions) != set(names):
        raise ValueError(f"metric {metric} takes dimensions {names}, got {sorted(dimensions)}")
    record_local(NAMESPACE, metric, value, dimensions)
    if os.environ.get("POWERTOOLS_METRICS_DISABLED", "").lower() == "true":
        return  # single_metric does not read Powertools' own switch
    with single_metric(
        name=metric, unit=MetricUnit(unit), value=value, namespace=NAMESPACE
    ) as emitted:
        for name, dim in dimensions.items():
            emitted.add_dimension(name=name, value=dim)


def record_local(
    namespace: str, metric: str, value: float, dimensions: Mapping[str, str] | None = None
) -> None:
    """On the local stack only: append the data point to DOCFLOW_METRICS_FILE."""
    path = os.environ.get("DOCFLOW_METRICS_FILE")
    if not path:
        return
    line = json.dumps(
        {
            "t": round(time.time(), 3),
            "ns": namespace,
            "name": metric,
            "value": value,
            "dims": dict(dimensions or {}),
        }
    )
    with _local_lock, open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")
