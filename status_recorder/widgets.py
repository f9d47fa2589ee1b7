"""The dashboard's custom-widget function: lists from the read model, as HTML.

A separate function from the recorder (its own role: Query on the read model's indexes and
nothing else), packaged from this folder. The body is docflow.ops.widgets.
"""

from __future__ import annotations

from typing import Any

from docflow.ops.widgets import handle
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings


def handler(event: Any, context: Any = None) -> Any:
    endpoint = str(getattr(context, "invoked_function_arn", "") or "")
    return handle(event, ReadModel(load_settings().table_name), endpoint)
