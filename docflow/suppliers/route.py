"""Pure decisions on checkpointed values that the orchestrator takes about suppliers.

- `issuer_iban_privacy`: for a type whose rules let the issuer's IBAN through
  (`[sensitive] issuer_iban_types`), classify held the `privacy` stage back when IBANs were
  its only reason; after extraction judged each IBAN, the stage comes back unless every one
  was the issuer's.
- `learning_due`: an approved `fields` review of a supplier matched by a checked id or IBAN
  teaches that supplier's profile (the step `learn supplier profile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docflow.readmodel.transitions import APPROVED


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
