"""Which fields each document type has, which are required, and how sure an engine must be.

Read from the rules file's `[fields]` table (see `docflow/rules/rules.toml`); a type with no
entry there has no `extract` step at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from docflow.extract.checks.orders import OrderRules
from docflow.extract.declarations.model import TypeDecl, kinds_of, parse_declarations

# A type's fields are its declarations (`[fields.types.<type>.fields.<name>]`).
TypeFields = TypeDecl


@dataclass(frozen=True)
class FieldRules:
    types: Mapping[str, TypeFields]
    stage: str | None
    min_confidence: float
    thresholds: Mapping[str, float]
    # Fields are read from the first pages only: an invoice's header and totals are there,
    # and a 2,000-page appendix must not cost 2,000 engine calls.
    max_pages: int
    # How an invoice is matched to the purchase order it cites (`[fields.orders]`).
    orders: OrderRules = field(default_factory=OrderRules)

    def threshold(self, name: str, fitted: Mapping[str, float] | None = None) -> float:
        """The rules file's own threshold for the field, else the one fitted with the engine's
        calibration (`Extraction.thresholds`), else `min_confidence`."""
        if name in self.thresholds:
            return self.thresholds[name]
        if fitted and name in fitted:
            return fitted[name]
        return self.min_confidence

    def for_type(self, doc_type: str) -> TypeFields | None:
        return self.types.get(doc_type)


NO_FIELDS = FieldRules(types={}, stage=None, min_confidence=0.0, thresholds={}, max_pages=5)


def parse_field_rules(raw: Mapping[str, Any] | None, text: str = "") -> FieldRules:
    """The `[fields]` table; raises ValueError naming what is wrong (and, given the rules
    file's `text`, the line a bad declaration is on)."""
    if not raw:
        return NO_FIELDS
    types = parse_declarations(raw.get("types", {}), text)
    known = kinds_of(types)
    thresholds = {str(k): float(v) for k, v in raw.get("thresholds", {}).items()}
    for name, value in thresholds.items():
        if name not in known or not 0.0 <= value <= 1.0:
            raise ValueError(f"fields.thresholds.{name}: a declared field and a number 0..1")
    # A field's own `threshold` is its rules-file threshold, as [fields.thresholds] is.
    for decl in types.values():
        for f in decl.fields:
            if f.threshold is not None:
                thresholds.setdefault(f.name, f.threshold)
    min_confidence = float(raw.get("min_confidence", 0.8))
    if not 0.0 <= min_confidence <= 1.0:
        raise ValueError("fields.min_confidence must be 0..1")
    max_pages = int(raw.get("max_pages", 5))
    if not 1 <= max_pages <= 50:
        raise ValueError("fields.max_pages must be 1..50")
    orders = OrderRules.parse(raw.get("orders"))
    return FieldRules(types, raw.get("stage"), min_confidence, thresholds, max_pages, orders)
