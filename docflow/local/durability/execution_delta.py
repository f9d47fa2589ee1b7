"""An execution's change between two saves, in the testing runner's own JSON form.

The runner hands its store the whole execution at every checkpoint. Everything an execution
holds is immutable (operations, updates, the start input, results: frozen dataclasses) except
the lists and dicts that hold them, so a copy of those containers is a snapshot, and what
changed since the last save is found by identity: an operation that is the same object is the
same operation. A save then writes only the changed entries, each encoded as the SDK's
`Execution.to_json_dict` encodes it, and a load applies them to that JSON and decodes it with
`Execution.from_json_dict`: the SDK's own format, never a second one of ours.

FIELDS names every attribute `to_json_dict` writes. An execution with an attribute it does
not name (a newer SDK) is saved whole each time (`covers`), which is slower, never lossy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def _same(value: Any) -> Any:
    return value


def _to_dict(value: Any) -> Any:
    return None if value is None else value.to_dict()


def _to_json_dict(value: Any) -> Any:
    return None if value is None else value.to_json_dict()


def _enum_value(value: Any) -> Any:
    return None if value is None else value.value


def _iso(value: Any) -> Any:
    return value.isoformat()


@dataclass(frozen=True)
class Field:
    attribute: str
    key: str  # its key in to_json_dict
    kind: str  # "value", "list" (items encoded one by one) or "map" (plain values)
    encode: Callable[[Any], Any] = _same


FIELDS = (
    Field("durable_execution_arn", "DurableExecutionArn", "value"),
    Field("start_input", "StartInput", "value", _to_dict),
    Field("operations", "Operations", "list", _to_json_dict),
    Field("updates", "Updates", "list", _to_dict),
    Field("update_timestamps", "UpdateTimestamps", "list", _iso),
    Field("invocation_completions", "InvocationCompletions", "list", _to_json_dict),
    Field("updated_operation_ids", "UpdatedOperationIds", "list"),
    Field("token_sequence", "TokenSequence", "value"),
    Field("seq_counter", "SeqCounter", "value"),
    Field("handler_seen_seq", "HandlerSeenSeq", "value"),
    Field("operation_last_touched_seq", "OperationLastTouchedSeq", "map"),
    Field("operation_size_bytes", "OperationSizeBytes", "map"),
    Field("chained_invoke_children", "ChainedInvokeChildren", "map"),
    Field("parent_execution_arn", "ParentExecutionArn", "value"),
    Field("region", "Region", "value"),
    Field("needs_reinvoke", "NeedsReinvoke", "value"),
    Field("last_checkpoint", "LastCheckpoint", "value", _to_json_dict),
    Field("is_complete", "IsComplete", "value"),
    Field("result", "Result", "value", _to_dict),
    Field("consecutive_failed_invocation_attempts", "ConsecutiveFailedInvocationAttempts", "value"),
    Field("close_status", "CloseStatus", "value", _enum_value),
    Field("current_invocation_id", "CurrentInvocationId", "value"),
    Field("_pause_state", "PauseState", "value", _enum_value),
)
_NAMED = frozenset(f.attribute for f in FIELDS)
_LOCKS = "_state_lock"  # a lock of its own in every copy, as a load from disk gives one


def covers(execution: Any) -> bool:
    """Whether FIELDS names every attribute this execution holds (the lock aside)."""
    return set(vars(execution)) - {_LOCKS} <= _NAMED


def snapshot(execution: Any) -> Any:
    """A copy that later changes to `execution` do not reach: new containers, the same
    immutable entries, a lock of its own."""
    copy = object.__new__(type(execution))
    for name, value in vars(execution).items():
        if isinstance(value, list):
            setattr(copy, name, list(value))
        elif isinstance(value, dict):
            setattr(copy, name, dict(value))
        elif name == _LOCKS:
            setattr(copy, name, threading.Lock())
        else:
            setattr(copy, name, value)
    return copy


def _unchanged(old: Any, new: Any) -> bool:
    return old is new or old == new


def delta(old: Any, new: Any) -> dict[str, Any]:
    """What changed from snapshot `old` to `new`, by to_json_dict key:
    a value: the encoded value; a list: {"n": its length, "set": [[index, item], ...]};
    a map: {"set": {key: value}, "del": [key, ...]}."""
    changes: dict[str, Any] = {}
    for f in FIELDS:
        before, after = getattr(old, f.attribute), getattr(new, f.attribute)
        if before is after:
            continue
        if f.kind == "value":
            if not _unchanged(before, after):
                changes[f.key] = f.encode(after)
        elif f.kind == "list":
            changed = [
                [i, f.encode(item)]
                for i, item in enumerate(after)
                if i >= len(before) or not _unchanged(before[i], item)
            ]
            if changed or len(after) != len(before):
                changes[f.key] = {"n": len(after), "set": changed}
        else:
            put = {k: v for k, v in after.items() if k not in before or before[k] != v}
            gone = [k for k in before if k not in after]
            if put or gone:
                changes[f.key] = {"set": put, "del": gone}
    return changes


def apply(data: dict[str, Any], changes: dict[str, Any]) -> None:
    """Apply a delta to an execution's to_json_dict form, in place."""
    for f in FIELDS:
        if f.key not in changes:
            continue
        change = changes[f.key]
        if f.kind == "value":
            data[f.key] = change
        elif f.kind == "list":
            items = data.get(f.key, [])[: change["n"]]
            for index, item in change["set"]:
                if index < len(items):
                    items[index] = item
                else:
                    items.append(item)  # a delta lists new items in order
            data[f.key] = items
        else:
            table = dict(data.get(f.key, {}))
            table.update(change["set"])
            for key in change["del"]:
                table.pop(key, None)
            data[f.key] = table
