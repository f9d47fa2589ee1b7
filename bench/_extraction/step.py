"""What a step body gets from the SDK, for the benchmarks that call step bodies directly."""

from __future__ import annotations

from typing import Any


class BenchStep:
    """A logger that discards and the first attempt number, as `StepContext` offers them."""

    attempt = 1

    class logger:  # mirrors StepContext.logger
        @staticmethod
        def info(*_: Any, **__: Any) -> None: ...

        @staticmethod
        def warning(*_: Any, **__: Any) -> None: ...
