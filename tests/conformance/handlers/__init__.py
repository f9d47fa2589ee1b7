"""Handlers for AWS's durable-execution conformance requirements, one per requirement id.

FUNCTIONS names each as the local Invoke host hosts it ("conformance-1-1" for requirement
1-1); the host loads it through DOCFLOW_LOCAL_EXTRA_FUNCTIONS.
"""

from __future__ import annotations

SUITES = {
    "step": ("1", 20),
    "wait": ("2", 5),
    "child": ("3", 18),
    "callback": ("4", 19),
    "wait_for_callback": ("7", 15),
    "map": ("9", 20),
}


def function_name(requirement_id: str) -> str:
    return f"conformance-{requirement_id}"


FUNCTIONS = {
    function_name(f"{prefix}-{n}"): f"tests.conformance.handlers.{suite}:h_{prefix}_{n}"
    for suite, (prefix, count) in SUITES.items()
    for n in range(1, count + 1)
}
