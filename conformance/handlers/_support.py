"""What several requirement handlers need: small serdes, a crash in a process of its own, a
JSON log line per record (Lambda's JSON log format), and a marker that outlives a crash.

Each requirement's handler is written from its YAML prose (handler / invocations), not from
any SDK's example code.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

LOG_ENV = "DOCFLOW_CONFORMANCE_LOG"
STATE_ENV = "DOCFLOW_CONFORMANCE_STATE"


class UppercaseSerDes(SerDes[str]):
    """Stores a string upper-cased, as is (no JSON quotes): requirements 1-6 and 3-14."""

    def serialize(self, value: str, serdes_context: SerDesContext) -> str:
        return str(value).upper()

    def deserialize(self, data: str, serdes_context: SerDesContext) -> str:
        return data


class PrefixSerDes(SerDes[str]):
    """A real round trip: "wrapped:X" on the way in, "X" on the way out (requirement 9-14)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def serialize(self, value: str, serdes_context: SerDesContext) -> str:
        return self.prefix + value

    def deserialize(self, data: str, serdes_context: SerDesContext) -> str:
        return data.removeprefix(self.prefix)


class JoinedListSerDes(SerDes[Any]):
    """A whole map result as "OPSERDE:X,Y" and back (requirements 9-19, 9-20)."""

    PREFIX = "OPSERDE:"

    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return self.PREFIX + ",".join(str(r) for r in value.get_results())

    def deserialize(self, data: str, serdes_context: SerDesContext) -> list[str]:
        body = data.removeprefix(self.PREFIX)
        return body.split(",") if body else []


class ProcessExited(Exception):
    """What Lambda reports when the function's process exits mid-invocation."""


# Lambda names this error "Runtime.ExitError"; the host reports an exception's class name.
ProcessExited.__name__ = ProcessExited.__qualname__ = "Runtime.ExitError"


def _child(handler: Callable[..., Any], event: Any, context: Any, conn: Any) -> None:
    result = handler(event, context)
    conn.send(result)
    conn.close()


def in_own_process(handler: Callable[..., Any]) -> Callable[..., Any]:
    """Run each invocation in a process of its own, so a handler may crash it (os._exit) the
    way a Lambda runtime process dies, without taking the shared Invoke host down."""

    def run(event: Any, context: Any) -> Any:
        spawn = multiprocessing.get_context("spawn")
        parent, child = spawn.Pipe(duplex=False)
        process = spawn.Process(target=_child, args=(handler, event, context, child))
        process.start()
        child.close()
        try:
            return parent.recv()
        except EOFError:
            pass  # the process ended without an answer: it crashed
        finally:
            process.join()
        raise ProcessExited(
            f"RequestId: {context.aws_request_id} Error: exit status {process.exitcode}"
        )

    run.__wrapped__ = handler  # type: ignore[attr-defined]
    return run


def crash() -> None:
    """End the process now, as process.exit / os._exit does in a Lambda runtime."""
    logging.shutdown()
    os._exit(129)


def first_time(key: str) -> bool:
    """True the first time `key` is seen on this machine: lets a handler crash once."""
    folder = Path(os.environ.get(STATE_ENV) or Path(tempfile.gettempdir(), "docflow-conformance"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        (folder / f"{key}.seen").open("x").close()
    except FileExistsError:
        return False
    return True


class JsonLineHandler(logging.Handler):
    """One JSON object per record with the SDK's enrichment (executionArn, operationId...),
    as Lambda's JSON log format writes to CloudWatch; appended to the file in LOG_ENV."""

    SKIP = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def emit(self, record: logging.LogRecord) -> None:
        line = {
            "timestamp": int(record.created * 1000),
            "level": record.levelname,
            "message": record.getMessage(),
            "logger": record.name,
        }
        line.update({k: v for k, v in record.__dict__.items() if k not in self.SKIP})
        raw = json.dumps(line, default=str)
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"timestamp": line["timestamp"], "message": raw}) + "\n")


def capture_logs() -> None:
    path = os.environ.get(LOG_ENV)
    root = logging.getLogger()
    if path and not any(isinstance(h, JsonLineHandler) for h in root.handlers):
        root.addHandler(JsonLineHandler(path))
        root.setLevel(logging.INFO)


def now_ms() -> int:
    return int(time.time() * 1000)
