"""Page readers: one interface, several engines, chosen by settings."""

from __future__ import annotations

from docflow.readers.base import PageReader, PageText
from docflow.readers.factory import build_reader

__all__ = ["PageReader", "PageText", "build_reader"]
