"""A packet's durable operation beyond the orchestrator's own (`orchestrator/packet_run.py`):

start parts    a map, FLAT, one step `parts-<i>` per group of parts: write each part's PDF
               and start its ordinary run (`docflow.pipeline.packet.write_and_start`)
"""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.concurrency.models import BatchResult
from aws_durable_execution_sdk_python.config import CompletionConfig, MapConfig, NestingType
from aws_durable_execution_sdk_python.serdes import JsonSerDes

from docflow.ids import DocumentRef
from docflow.packets.plan import part_batches
from docflow.pipeline.packet import PARTS_STEP, PartsStarted, write_and_start
from docflow.pipeline.serdes import BatchResultJson


def start_parts(context: DurableContext, doc: DocumentRef, parts: list[list[int]]) -> PartsStarted:
    """Write and start every part, a group of parts a step (FLAT: one operation each)."""
    groups = [parts[a:b] for a, b in part_batches(len(parts))]
    done: BatchResult[list[list[Any]]] = context.map(
        groups,
        lambda ctx, group, index, _: ctx.step(
            write_and_start(doc, group), name=f"parts-{index}", config=PARTS_STEP
        ),
        name="start parts",
        config=MapConfig(
            max_concurrency=2,
            completion_config=CompletionConfig.all_completed(),
            nesting_type=NestingType.FLAT,
            serdes=BatchResultJson(),
            item_serdes=JsonSerDes(),
        ),
    )
    out: list[tuple[int, int, str]] = []
    for item, group in zip(sorted(done.all, key=lambda i: i.index), groups, strict=True):
        if item.error is not None or item.result is None:
            # The step kept failing (S3 or the starter away): its parts are not started.
            out += [(first, last, "internal-error") for first, last in group]
        else:
            out += [(int(a), int(b), str(how)) for a, b, how in item.result]
    return PartsStarted(tuple(out))
