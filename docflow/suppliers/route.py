"""Pure decisions on checkpointed values that the orchestrator takes about suppliers.

- `issuer_iban_privacy`: for a type whose rules let the issuer's IBAN through
  (`[sensitive] issuer_iban_types`), classify held the `privacy` stage back when IBANs were
  its only reason; after extraction judged each IBAN, the stage comes back unless every one
  was the issuer's.
- `bank_details_stage`: the extract step's bank-details check (`bank.py`) holds the invoice
  at the `[suppliers] bank_details_stage` when `BankCheck.holds`: a payee account not the
  supplier's, one no check recognizes, an account asked for and unreadable, or no
  registered supplier with `unknown_payee = "hold"`.
- `learning_due`: an approved `fields` review (or `audit`) teaches the page's layout (the
  step `learn supplier profile`), whether or not its supplier is registered: the layout the
  page matched by its fingerprint, or a new one where it matched none; never one the page
  matched ambiguously, one withheld (the page's ids name a supplier its name denies), or an
  e-invoice's data. Unless the review changed who is paid (a corrected IBAN, a bank-details
  stage on the route), or corrected the issuer of a page whose checked id named a registered
  supplier (the id and the person disagree: nothing here is that supplier's layout). A run
  from before layouts (its summary has no `layout`) keeps the rule it was recorded under.
- `audit_decision`: an approved audit stage, and who approved it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from docflow.document import DocumentSummary, Field
from docflow.document.shown import IbanShown
from docflow.readmodel.transitions import APPROVED
from docflow.rules.controls import HOLD, ControlRules
from docflow.rules.model import Stage
from docflow.rules.routed import PrivacyHeld, RoutedStage
from docflow.suppliers.bank import BankCheck


def issuer_iban_privacy(held: PrivacyHeld | None, judged: Sequence[IbanShown]) -> list[RoutedStage]:
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
    return [RoutedStage.from_json(held["stage"])]


BANK_DETAILS = "bank-details"  # the bank-details stage's `because` (and its shipped name)
AUDIT = "audit"  # the audit stage's `because` (docflow.pipeline.audit)
TEACHING = ("fields", AUDIT)  # the stages whose approval confirms every value shown


def changed_payee(summary: DocumentSummary, stages: Sequence[RoutedStage]) -> bool:
    """The review changed who the invoice is from or who is paid, or passed a bank check."""
    if any(BANK_DETAILS in (s.because, s.name) for s in stages):
        return True
    for name, f in (summary.fields or {}).items():
        if name != "vendor_name" and "iban" not in name:
            continue
        if f.corrected and str(f.original) != str(f.value):
            return True
    return False


def _approved(
    stages: Sequence[RoutedStage], decided: Sequence[Mapping[str, Any]], because: Sequence[str]
) -> list[Mapping[str, Any]]:
    names = {s.name for s in stages if s.because in because}
    return [d for d in decided if d.get("stageName") in names and d.get("decision") == APPROVED]


LEARNABLE = ("matched", "none")  # the layout statuses a review may teach


def _corrected(field: Field) -> bool:
    return field.corrected and str(field.original) != str(field.value)


def learning_due(
    summary: DocumentSummary,
    stages: Sequence[RoutedStage],
    decided: Sequence[Mapping[str, Any]],
) -> bool:
    """Whether an approved review teaches the page's layout (the module's docstring)."""
    layout = summary.layout
    if layout is None:
        return _learning_due_before_layouts(summary, stages, decided)
    if layout.get("status") not in LEARNABLE or not summary.fields:
        return False
    fields = summary.fields
    if any(BANK_DETAILS in (s.because, s.name) for s in stages):
        return False
    if any("iban" in name and _corrected(f) for name, f in fields.items()):
        return False
    supplier = summary.supplier or {}
    by_id = supplier.get("certain") and supplier.get("by") not in ("fingerprint", "name")
    vendor = fields.get("vendor_name")
    if by_id and vendor is not None and _corrected(vendor):
        return False
    return bool(_approved(stages, decided, TEACHING))


def teachers(stages: Sequence[RoutedStage], decided: Sequence[Mapping[str, Any]]) -> list[str]:
    """Who approved the stages that confirm every value shown (for `distinct_reviewers`)."""
    found = [str(d.get("reviewer") or "") for d in _approved(stages, decided, TEACHING)]
    return sorted({who for who in found if who})


def _learning_due_before_layouts(
    summary: DocumentSummary,
    stages: Sequence[RoutedStage],
    decided: Sequence[Mapping[str, Any]],
) -> bool:
    """The rule recorded runs were made under (a supplier's own profile): a registered
    supplier matched by a checked id, IBAN, fingerprint or name whose review did not change
    who is paid."""
    supplier = summary.supplier or {}
    # A reviewer who proposed a new supplier said the name's match is another issuer.
    by_name = supplier.get("by") == "name" and not summary.proposed
    known = supplier.get("certain") or (by_name and supplier.get("supplierId"))
    if not known or not summary.fields:
        return False
    if changed_payee(summary, stages):
        return False
    return bool(_approved(stages, decided, TEACHING))


class AuditApproval(TypedDict):
    """Who approved an audit stage, and when (`decidedAt`, ISO)."""

    decidedBy: str
    decidedAt: str


def audit_decision(
    stages: Sequence[RoutedStage], decided: Sequence[Mapping[str, Any]]
) -> AuditApproval | None:
    """An approved audit stage: {"decidedBy": the reviewer, "decidedAt"}; None when there
    was none."""
    approved = _approved(stages, decided, (AUDIT,))
    if not approved:
        return None
    last = approved[-1]
    return {
        "decidedBy": str(last.get("reviewer") or ""),
        "decidedAt": str(last.get("decidedAt") or ""),
    }


def bank_details_stage(
    bank: BankCheck | None, controls: ControlRules, stages: Mapping[str, Stage]
) -> list[RoutedStage]:
    """`bank`: the extract step's bank-details check; the stage to add, if any. It routes on
    the check's typed decision (`BankCheck.holds`, which knows `unknown_payee`), never on
    what the check shows."""
    name = controls.bank_details_stage
    if bank is None or not name or not bank.holds:
        return []
    return [RoutedStage.of(stages[name], BANK_DETAILS)]


def holds_unknown(controls: ControlRules) -> bool:
    """`[suppliers] unknown_payee = "hold"`: an invoice no registered supplier issued waits
    at the bank-details stage."""
    return controls.unknown_payee == HOLD
