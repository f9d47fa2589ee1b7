"""AWS's durable-execution conformance requirements, run against docflow's local stack: the
requirement handlers (`handlers/`, loaded by the local host) and the one list of suites the
runner (`docflow.local.fidelity.conformance`), bench/conformance.py and the tests share.
Imports the durable execution SDK only; nothing of docflow.
"""

from __future__ import annotations

# suite -> (requirement id prefix, number of requirements), in the order the runner runs them.
SUITES: dict[str, tuple[str, int]] = {
    "step": ("1", 20),
    "map": ("9", 20),
    "wait": ("2", 5),
    "child": ("3", 18),
    "callback": ("4", 19),
    "wait_for_callback": ("7", 15),
}

# What DOCFLOW_LOCAL_EXTRA_FUNCTIONS names for the local host: function name -> handler.
HANDLERS = "conformance.handlers:FUNCTIONS"


def function_name(requirement_id: str) -> str:
    """The host names requirement 1-7's handler "conformance-1-7"."""
    return f"conformance-{requirement_id}"
