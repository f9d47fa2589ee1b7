"""The suppliers' tests' fixtures: `use_rules`, the shipped rules with the payment controls
turned (tests/suppliers/rules.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docflow.settings import load_settings
from tests.suppliers.rules import controls_rules


@pytest.fixture
def use_rules(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[..., None]]:
    """`use_rules(min_confirmations=..., rate=..., distinct_reviewers=...)`: the handler reads
    that rules file (its waits short, as `shipped_rules`)."""
    from docflow.runtime import use_runtime

    def use(**controls: float) -> None:
        path = controls_rules(tmp_path, **controls)  # type: ignore[arg-type]
        monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
        monkeypatch.setenv("DOCFLOW_STAGE_TIMEOUT_S", "30")
        load_settings.cache_clear()
        use_runtime(None)

    yield use
    use_runtime(None)
