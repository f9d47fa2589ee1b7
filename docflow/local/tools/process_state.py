"""Forgetting what this process cached for another AWS endpoint: its boto3 clients, its
settings, its runtime and the storage's source cache. Light on purpose: the CLI points itself
at the local stack through this on every command, and `docflow trace` must not pay for the
runtime's imports (the rules, the extraction engines, the classifier: seconds) to forget a
runtime it never built."""

from __future__ import annotations

import sys

from docflow import aws
from docflow.settings import load_settings
from docflow.storage import clear_source_cache


def reset_process_state() -> None:
    aws.reset_clients()
    load_settings.cache_clear()
    clear_source_cache()
    # A process holds a runtime only if it imported the module that builds one.
    runtime = sys.modules.get("docflow.runtime")
    if runtime is not None:
        runtime.use_runtime(None)
