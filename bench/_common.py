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
