"""The rules file's payment controls: what lets an invoice skip a person, and what stops it.

    [suppliers]
    unknown_payee = "pass"       # "hold": an invoice whose supplier is not registered waits
                                 # at the bank-details stage (a complete supplier master)
    min_confirmations = 2        # agreeing reviews before a learned profile field decides
    bank_details_stage = "bank-details"   # a payee IBAN not registered for the supplier

    [audit]
    stage = "audit"              # documents finalized on a profile, sampled
    first = 3                    # the first N after a profile field becomes trusted
    rate = 0.05                  # then this share, deterministic by document id

    [duplicates]
    stage = "duplicate"          # the same supplier and number (or total and date) again

Every stage named here must be defined under `[stages.NAME]`; a table left out turns its
control off (no stage), except `min_confirmations`, which is always at least 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PASS, HOLD = "pass", "hold"


@dataclass(frozen=True)
class ControlRules:
    unknown_payee: str = PASS
    min_confirmations: int = 2
    bank_details_stage: str | None = None
    audit_stage: str | None = None
    audit_first: int = 3
    audit_rate: float = 0.05
    duplicate_stage: str | None = None

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages these controls may add, for the rules' checks and the longest path."""
        named = (self.bank_details_stage, self.audit_stage, self.duplicate_stage)
        return tuple(s for s in named if s)


NO_CONTROLS = ControlRules(min_confirmations=1)


def _known(table: str, raw: Mapping[str, Any], keys: set[str]) -> None:
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise ValueError(f"{table}: unknown keys {unknown}")


def parse_control_rules(raw: Mapping[str, Any]) -> ControlRules:
    """The three tables from the whole rules file; raises ValueError naming what is wrong."""
    suppliers = dict(raw.get("suppliers") or {})
    audit = dict(raw.get("audit") or {})
    duplicates = dict(raw.get("duplicates") or {})
    _known("suppliers", suppliers, {"unknown_payee", "min_confirmations", "bank_details_stage"})
    _known("audit", audit, {"stage", "first", "rate"})
    _known("duplicates", duplicates, {"stage"})
    unknown_payee = str(suppliers.get("unknown_payee", PASS))
    if unknown_payee not in (PASS, HOLD):
        raise ValueError("suppliers.unknown_payee must be 'pass' or 'hold'")
    confirmations = int(suppliers.get("min_confirmations", 2))
    if not 1 <= confirmations <= 20:
        raise ValueError("suppliers.min_confirmations must be 1..20")
    first, rate = int(audit.get("first", 3)), float(audit.get("rate", 0.05))
    if first < 0 or not 0.0 <= rate <= 1.0:
        raise ValueError("audit: first must be >= 0 and rate 0..1")
    bank = suppliers.get("bank_details_stage")
    if unknown_payee == HOLD and not bank:
        raise ValueError("suppliers.unknown_payee = 'hold' needs suppliers.bank_details_stage")
    return ControlRules(
        unknown_payee=unknown_payee,
        min_confirmations=confirmations,
        bank_details_stage=str(bank) if bank else None,
        audit_stage=str(audit["stage"]) if audit.get("stage") else None,
        audit_first=first,
        audit_rate=rate,
        duplicate_stage=str(duplicates["stage"]) if duplicates.get("stage") else None,
    )
