"""The schedule's tick in, this window's batcher started (one name per window, so a repeated
tick starts nothing new) when the pool has pending records: an empty pool starts nothing, so a
quiet account runs no batcher every five minutes. An EventBridge schedule cannot name a durable
execution itself."""

from __future__ import annotations

from typing import Any, TypedDict

from docflow.observability import logger
from docflow.piles.pool import PENDING, Pool
from docflow.piles.start import scheduled_name, start_batcher
from docflow.settings import load_settings


class Tick(TypedDict, total=False):
    """The schedule's input (template.yaml): its period, so a window's name is fixed."""

    everySeconds: int


class Scheduled(TypedDict):
    batcher: str  # the batcher's execution name, "" when the pool was empty


def handler(event: Tick | None, context: Any) -> Scheduled:
    every = int((event or {}).get("everySeconds") or 300)
    if not Pool().any_in(PENDING):
        logger.info("pool empty: no batcher this window")
        return {"batcher": ""}
    name = start_batcher(scheduled_name(every_s=every))
    function = load_settings().batcher_function
    logger.info("batcher scheduled", extra={"batcher": name, "function": function})
    return {"batcher": name}
