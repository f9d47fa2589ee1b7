"""Pure decisions on checkpointed values that the orchestrator takes about suppliers.

- `issuer_iban_privacy`: for a type whose rules let the issuer's IBAN through
  (`[sensitive] issuer_iban_types`), classify held the `privacy` stage back when IBANs were
  its only reason; after extraction judged each IBAN, the stage comes back unless every one
  was the issuer's.
- `bank_details_stage`: the extract step's bank-details check (`bank.py`) holds the invoice
  at the `[suppliers] bank_details_stage` when a payee IBAN is not the supplier's, or when no
  registered supplier issued it and the rules say `unknown_payee = "hold"`.
- `learning_due`: an approved `fields` review of a supplier matched by a checked id or IBAN
  teaches that supplier's profile (the step `learn supplier profile`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from docflow.readmodel.transitions import APPROVED
from docflow.rules.controls import HOLD, ControlRules
from docflow.rules.model import Stage
from docflow.suppliers.bank import HOLDS, UNKNOWN_SUPPLIER


def issuer_iban_privacy(
    held: dict[str, Any] | None, judged: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`held`: the classification's held-back privacy stage and its IBAN count; `judged`:
    the IBANs extraction judged (the extract step's `ibans`)."""
    if not held:
        return []
    ibans = [i for i in judged if i.get("valid")]
    issuer = sum(1 for i in ibans if i.get("owner") == "issuer")
    # Every IBAN the detector counted (all pages) must be judged the issuer's; an IBAN on a
    # page extraction does not read, or anyone else's, keeps the stage.
    if issuer >= int(held["ibans"]) and issuer == len(ibans):
        return []
    return [held["stage"]]


def learning_due(
    summary: dict[str, Any], stages: Sequence[dict[str, Any]], decided: Sequence[dict[str, Any]]
) -> bool:
    supplier = summary.get("supplier") or {}
    if not supplier.get("certain") or not summary.get("fields"):
        return False
    fields_stages = {s["name"] for s in stages if s.get("because") == "fields"}
    return any(
        d.get("stageName") in fields_stages and d.get("decision") == APPROVED for d in decided
    )


def bank_details_stage(
    bank: dict[str, Any] | None, controls: ControlRules, stages: Mapping[str, Stage]
) -> list[dict[str, Any]]:
    """`bank`: the extract step's `bank` (BankCheck.shown()); the stage to add, if any."""
    name = controls.bank_details_stage
    if not bank or not name:
        return []
    verdict = bank.get("verdict")
    unknown_held = verdict == UNKNOWN_SUPPLIER and controls.unknown_payee == HOLD
    if verdict in HOLDS or unknown_held:
        return [{**stages[name].to_dict(), "because": "bank-details"}]
    return []
