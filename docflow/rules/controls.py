"""The rules file's payment controls: what lets an invoice skip a person, and what stops it.

    [suppliers]
    unknown_payee = "pass"       # "hold": an invoice whose supplier is not registered waits
                                 # at the bank-details stage (a complete supplier master)
    min_confirmations = 2        # agreeing reviews before a learned profile field decides
    bank_details_stage = "bank-details"   # a payee IBAN not registered for the supplier

    [audit]
    stage = "audit"              # documents finalized on a profile, sampled
    rate = 0.05                  # this share, by an HMAC under a secret key of the
                                 # document's content and version (never of its name)
    distinct_reviewers = 1       # the people whose confirmations a profile field needs

    [duplicates]
    stage = "duplicate"          # the same supplier and number (or total and date) again

Every stage named here must be defined under `[stages.NAME]`; a table left out turns its
control off (no stage), except `min_confirmations`, which is always at least 1.

`[audit] first` is gone (issue 59): a field's probation is the graded shadow reads of the
reviews that made it trusted (docflow.suppliers.profile), not the documents after it; a rules
file that still says `first` is refused with that reason rather than read otherwise than it
was written.
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
    audit_rate: float = 0.05
    # The distinct people whose confirmations a profile field needs before it is trusted.
    distinct_reviewers: int = 1
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
    if "first" in audit:
        raise ValueError(
            "audit.first is gone: the graded reads of the reviews that made a field trusted "
            "are the audit's first window (docs/payment-controls.md); remove it"
        )
    _known("audit", audit, {"stage", "rate", "distinct_reviewers"})
    _known("duplicates", duplicates, {"stage"})
    unknown_payee = str(suppliers.get("unknown_payee", PASS))
    if unknown_payee not in (PASS, HOLD):
        raise ValueError("suppliers.unknown_payee must be 'pass' or 'hold'")
    confirmations = int(suppliers.get("min_confirmations", 2))
    if not 1 <= confirmations <= 20:
        raise ValueError("suppliers.min_confirmations must be 1..20")
    rate = float(audit.get("rate", 0.05))
    if not 0.0 <= rate <= 1.0:
        raise ValueError("audit.rate must be 0..1")
    people = int(audit.get("distinct_reviewers", 1))
    if not 1 <= people <= 10:
        raise ValueError("audit.distinct_reviewers must be 1..10")
    bank = suppliers.get("bank_details_stage")
    if unknown_payee == HOLD and not bank:
        raise ValueError("suppliers.unknown_payee = 'hold' needs suppliers.bank_details_stage")
    return ControlRules(
        unknown_payee=unknown_payee,
        min_confirmations=confirmations,
        bank_details_stage=str(bank) if bank else None,
        audit_stage=str(audit["stage"]) if audit.get("stage") else None,
        audit_rate=rate,
        distinct_reviewers=people,
        duplicate_stage=str(duplicates["stage"]) if duplicates.get("stage") else None,
    )
