"""Handlers for AWS's durable-execution conformance requirements, one per requirement id.

FUNCTIONS names each as the local Invoke host hosts it ("conformance-1-1" for requirement
1-1); the host loads it through DOCFLOW_LOCAL_EXTRA_FUNCTIONS.
"""

from __future__ import annotations

from conformance import SUITES, function_name

FUNCTIONS = {
    function_name(f"{prefix}-{n}"): f"conformance.handlers.{suite}:h_{prefix}_{n}"
    for suite, (prefix, count) in SUITES.items()
    for n in range(1, count + 1)
}
