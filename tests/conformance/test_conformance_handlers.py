"""Every requirement of the six suites has a handler the local host can load, and no more."""

from __future__ import annotations

import importlib

from conformance import SUITES
from conformance.handlers import FUNCTIONS
from docflow.local.fidelity import conformance as runner


def test_one_handler_per_requirement() -> None:
    required = {runner.FUNCTION_PREFIX + rid for rid in runner.requirement_files(SUITES)}
    assert len(required) == 97
    assert set(FUNCTIONS) == required
    for target in FUNCTIONS.values():
        module, attr = target.split(":")
        assert callable(getattr(importlib.import_module(module), attr)), target
