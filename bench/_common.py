"""Helpers the benchmarks share: a path fix-up and a clean JSON print."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

# Before anything imports Powertools: metrics and logs stay off stdout, which is the JSON's.
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")

ROOT = Path(__file__).resolve().parents[1]
# First, before bench/ itself: bench/conformance.py shares the `conformance` package's name.
if str(ROOT) in sys.path:
    sys.path.remove(str(ROOT))
sys.path.insert(0, str(ROOT))


def quiet() -> None:
    """Benchmarks print one JSON object on stdout; the pipeline's own logs go elsewhere."""
    logging.disable(logging.WARNING)


def emit(value: Any) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def scan_count(table: str, **query: Any) -> tuple[int, int]:
    """(items found, items read) by a filtered Scan of the whole table: the benchmarks'
    baseline for a question the app answers from an index. Never in the app."""
    from docflow import aws  # deferred: most benchmarks never scan

    ddb = aws.client("dynamodb")
    found, read, start = 0, 0, None
    while True:
        args: dict[str, Any] = {"TableName": table, **query}
        if start:
            args["ExclusiveStartKey"] = start
        answer = ddb.scan(**args)
        found += answer["Count"]
        read += answer["ScannedCount"]
        start = answer.get("LastEvaluatedKey")
        if not start:
            return found, read
