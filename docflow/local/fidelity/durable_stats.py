"""What an execution cost in durable terms, read from a test runner's recorded operations.

The local runner enforces none of the service's limits (3,000 operations, 256 KB per step
result, 100 MB of checkpoint data), so tests and benchmarks measure them here.
"""

from __future__ import annotations

from typing import Any


def payload_sizes(result: Any) -> list[tuple[str, int]]:
    """(operation name, bytes of its checkpointed result) for every operation with a result."""
    sizes = []
    for op in result.get_all_operations():
        payload = getattr(op, "result", None)
        if payload is not None:
            sizes.append((op.name or op.operation_id, len(str(payload).encode("utf-8"))))
    return sizes


def checkpoint_stats(result: Any) -> dict[str, int]:
    sizes = payload_sizes(result)
    return {
        "operations": len(result.get_all_operations()),
        "max_step_result_bytes": max((n for _, n in sizes), default=0),
        "checkpoint_bytes_total": sum(n for _, n in sizes),
    }


def checkpointed_text(result: Any) -> str:
    """Every checkpointed result, concatenated: tests search it for text that must not be there."""
    return "\n".join(
        str(op.result) for op in result.get_all_operations() if getattr(op, "result", None)
    )
