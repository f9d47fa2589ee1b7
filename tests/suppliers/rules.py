"""The shipped rules file with its payment controls turned: for a test about something else
than earned trust (one review trusts a profile, nothing is audited), or about the audit itself
(every document read on a profile audited). A test never runs at the shipped rate (0.05): the
draw is keyed by the stack's own secret, so which documents it takes is unknown to a test."""

from __future__ import annotations

import re
from pathlib import Path

from docflow.rules.model import DEFAULT_RULES


def controls_rules(
    folder: Path, *, min_confirmations: int = 2, rate: float = 0.0, distinct_reviewers: int = 1
) -> Path:
    """The shipped rules with `[suppliers] min_confirmations` and `[audit] rate`,
    `distinct_reviewers`."""
    text = DEFAULT_RULES.read_text()
    turned = (
        ("min_confirmations", min_confirmations),
        ("rate", rate),
        ("distinct_reviewers", distinct_reviewers),
    )
    for key, value in turned:
        text, n = re.subn(rf"(?m)^{key} = \S+$", f"{key} = {value}", text)
        assert n == 1, key  # the shipped file says each once
    path = folder / "controls-rules.toml"
    path.write_text(text)
    return path


def trust_after_one(folder: Path) -> Path:
    """One review trusts a profile field, and nothing is audited (today's tests of reading)."""
    return controls_rules(folder, min_confirmations=1, rate=0.0)
