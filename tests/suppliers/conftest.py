"""The suppliers' tests' fixtures: `use_rules`, the shipped rules with the payment controls
turned (tests/suppliers/rules.py), and `registry`, a registry holding Blauwal alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docflow.settings import load_settings
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_NAME, BLAUWAL_VAT
from tests.suppliers.rules import controls_rules
from tests.support.aws import Stack


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


@pytest.fixture
def registry(stack: Stack) -> SupplierStore:
    """The supplier table holding one registered supplier, Blauwal (its VAT id and IBAN)."""
    store = SupplierStore(load_settings().supplier_table)
    iban = BLAUWAL_IBAN.replace(" ", "")
    import_suppliers(store, f"id,name,vat,iban\nblauwal,{BLAUWAL_NAME},{BLAUWAL_VAT},{iban}\n")
    return store
