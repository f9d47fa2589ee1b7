"""What the field-engine tests share: settings for one engine with short throttle backoffs,
and the type of the `endpoint` fixture (tests/extract/conftest.py) that points a service's
client at a local emulator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from docflow.settings import Settings, load_settings

Endpoint = Callable[[str, str], None]


def settings_for(engine: str, **changes: object) -> Settings:
    """The loaded settings with `engine` as the extract engine and backoffs of milliseconds."""
    return replace(
        load_settings(),
        extract_engine=engine,
        throttle_base_delay_s=0.01,
        throttle_max_delay_s=0.05,
        **changes,
    )
