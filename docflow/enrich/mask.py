"""Sensitive values never leave S3: strings an engine wrote are masked before they reach a
checkpoint or the read model, with the classifier's own detectors and masks."""

from __future__ import annotations

from typing import Any

from docflow.rules.detectors import find_all


def mask_text(text: str) -> str:
    out, last = [], 0
    for finding in find_all(text):
        out.append(text[last : finding.start])
        out.append(finding.masked)
        last = finding.end
    out.append(text[last:])
    return "".join(out)


def mask_strings(value: Any) -> Any:
    """`value` with every string in it masked (dicts, lists and scalars as they are)."""
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, dict):
        return {k: mask_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_strings(v) for v in value]
    return value
