"""Every requirement of the six suites has a handler the local host can load, and no more."""

from __future__ import annotations

import importlib

from docflow.local.fidelity import conformance
from tests.conformance.handlers import FUNCTIONS


def test_one_handler_per_requirement() -> None:
    required = {
        conformance.FUNCTION_PREFIX + rid
        for rid in conformance.requirement_files(conformance.SUITES)
    }
    assert len(required) == 97
    assert set(FUNCTIONS) == required
    for target in FUNCTIONS.values():
        module, attr = target.split(":")
        assert callable(getattr(importlib.import_module(module), attr)), target
