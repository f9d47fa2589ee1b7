"""The edges of the supplier decisions the orchestrator routes on (`docflow/suppliers/route.py`):
who may teach a profile, when the issuer's IBANs release the privacy stage, when the bank check
adds its stage, and whose approval an audit records. Each test names the boundary it guards;
together they kill the mutants bench/README.md ("Mutation testing") counts for the module."""

from __future__ import annotations

from typing import Any

from docflow.document import DocumentSummary
from docflow.rules.controls import HOLD, PASS, ControlRules
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.suppliers.bank import (
    NO_PAYEE,
    OTHER_SUPPLIER,
    REGISTERED,
    UNKNOWN_SUPPLIER,
    UNREADABLE,
    UNRECOGNIZED,
    UNREGISTERED,
    BankCheck,
)
from docflow.suppliers.route import (
    audit_decision,
    bank_details_stage,
    changed_payee,
    holds_unknown,
    issuer_iban_privacy,
    learning_due,
)

FIELDS = RoutedStage(Stage("fields", ("ap@x",), 3600, 0), "fields")
APPROVED = [{"stageName": "fields", "decision": "approved", "reviewer": "ap@x"}]
CERTAIN = {"supplierId": "blauwal", "certain": True}
NUMBER = {"invoice_number": {"value": "E1", "confidence": 0.9}}


def corrected(value: str, original: str | None) -> dict[str, Any]:
    return {"value": value, "original": original, "correctedBy": "ap@x"}


def typed(raw: dict[str, Any]) -> DocumentSummary:
    """The run's typed record of a summary written as its JSON."""
    return DocumentSummary.from_json({"docType": "invoice", **raw})


def summary(**fields: dict[str, Any]) -> DocumentSummary:
    return typed({"supplier": CERTAIN, "fields": {**NUMBER, **fields}})


# -- learning_due / changed_payee: a review that changed who is paid teaches nothing ----------


def test_a_corrected_iban_stops_learning_as_a_corrected_vendor_does() -> None:
    """The second branch of `changed_payee`: the IBAN field (any field named for an IBAN),
    not only the vendor's name."""
    assert learning_due(summary(), [FIELDS], APPROVED)
    for name in ("iban", "payee_iban", "iban_2"):
        changed = summary(**{name: corrected("DE89370400440532013000", "GB82WEST12345698765432")})
        assert changed_payee(changed, [FIELDS]), name
        assert not learning_due(changed, [FIELDS], APPROVED), name


def test_a_correction_that_left_the_value_as_read_changes_no_payee() -> None:
    """`correctedBy` alone is no change: the value must differ from the original read (a
    reviewer who re-typed the same IBAN confirmed it)."""
    same = summary(iban=corrected("DE89370400440532013000", "DE89370400440532013000"))
    assert not changed_payee(same, [FIELDS])
    assert learning_due(same, [FIELDS], APPROVED)
    # A value read as a number and typed as text is the same value.
    typed = summary(vendor_name={"value": "42", "original": 42, "correctedBy": "ap@x"})
    assert not changed_payee(typed, [FIELDS])


def test_a_corrected_field_that_names_no_payee_still_teaches() -> None:
    """Only the vendor and IBAN fields say who is paid; a corrected number is what teaching is
    for."""
    other = summary(invoice_number=corrected("E2", "E1"), due_date=corrected("2026-01-02", None))
    assert not changed_payee(other, [FIELDS])
    assert learning_due(other, [FIELDS], APPROVED)
    # A value nobody corrected (no `correctedBy`) that differs from its original is no review's.
    unreviewed = summary(iban={"value": "DE89370400440532013000", "original": "x"})
    assert not changed_payee(unreviewed, [FIELDS])


def test_a_bank_details_stage_by_name_or_by_reason_stops_learning() -> None:
    by_reason = RoutedStage(Stage("treasury", ("t@x",), 3600, 0), "bank-details")
    by_name = RoutedStage(Stage("bank-details", ("t@x",), 3600, 0), "custom")
    for stage in (by_reason, by_name):
        assert changed_payee(summary(), [FIELDS, stage])
        assert not learning_due(summary(), [FIELDS, stage], APPROVED)
    other = RoutedStage(Stage("legal", ("l@x",), 3600, 0), "rule")
    assert not changed_payee(summary(), [FIELDS, other])


def test_only_a_known_supplier_with_fields_and_an_approved_teaching_stage_learns() -> None:
    assert not learning_due(typed({"fields": NUMBER}), [FIELDS], APPROVED)  # no supplier
    uncertain = {"supplier": {"supplierId": "blauwal", "certain": False}, "fields": NUMBER}
    assert not learning_due(typed(uncertain), [FIELDS], APPROVED)
    assert not learning_due(typed({"supplier": CERTAIN, "fields": {}}), [FIELDS], APPROVED)
    assert not learning_due(typed({"supplier": CERTAIN}), [FIELDS], APPROVED)
    assert not learning_due(summary(), [FIELDS], [])  # nobody approved
    rejected = [{**APPROVED[0], "decision": "rejected"}]
    assert not learning_due(summary(), [FIELDS], rejected)
    elsewhere = [{**APPROVED[0], "stageName": "legal"}]
    assert not learning_due(summary(), [FIELDS], elsewhere)
    # An approval of a stage that teaches nothing (its reason is no review of the fields).
    legal = RoutedStage(Stage("legal", ("l@x",), 3600, 0), "rule")
    assert not learning_due(summary(), [legal], elsewhere)


def test_a_supplier_matched_by_name_learns_unless_a_reviewer_proposed_another() -> None:
    named = {"supplier": {"supplierId": "blauwal", "by": "name"}, "fields": NUMBER}
    assert learning_due(typed(named), [FIELDS], APPROVED)
    proposed = {**named, "supplierProposed": {"name": "Blauwal Hafen"}}
    assert not learning_due(typed(proposed), [FIELDS], APPROVED)
    # Matched by name with no registered id: nothing to teach.
    nameless = {"supplier": {"by": "name"}, "fields": NUMBER}
    assert not learning_due(typed(nameless), [FIELDS], APPROVED)
    # Matched by an uncertain fingerprint: not by name, so it teaches nothing.
    printed = {"supplier": {"supplierId": "blauwal", "by": "fingerprint"}, "fields": NUMBER}
    assert not learning_due(typed(printed), [FIELDS], APPROVED)


def test_the_last_approved_audit_says_who_decided() -> None:
    audit = RoutedStage(Stage("audit", ("c@x",), 3600, 0), "audit")
    decided = [
        {"stageName": "audit", "decision": "approved", "reviewer": "a@x", "decidedAt": "t1"},
        {"stageName": "audit", "decision": "rejected", "reviewer": "r@x", "decidedAt": "t2"},
        {"stageName": "audit", "decision": "approved", "reviewer": "b@x", "decidedAt": "t3"},
    ]
    assert audit_decision([audit], decided) == {"decidedBy": "b@x", "decidedAt": "t3"}
    assert audit_decision([audit], [{"stageName": "audit", "decision": "approved"}]) == {
        "decidedBy": "",
        "decidedAt": "",
    }
    assert audit_decision([audit], decided[1:2]) is None


# -- issuer_iban_privacy: every counted IBAN must be the issuer's --------------------------

PRIVACY = RoutedStage(Stage("privacy", ("dpo@x",), 3600, 0), "sensitive")
HELD = {"stage": PRIVACY.to_json(), "ibans": 2}


def iban(owner: str, valid: bool = True) -> dict[str, Any]:
    return {"iban": "DE•••• 3000", "valid": valid, "owner": owner}


def test_the_privacy_stage_comes_back_unless_every_counted_iban_is_the_issuers() -> None:
    assert issuer_iban_privacy(None, [iban("issuer")]) == []
    assert issuer_iban_privacy(HELD, [iban("issuer"), iban("issuer")]) == []
    # One fewer than the detector counted: an IBAN on a page extraction did not read.
    assert issuer_iban_privacy(HELD, [iban("issuer")]) == [PRIVACY]
    # As many as counted, but one of them another's.
    assert issuer_iban_privacy(HELD, [iban("issuer"), iban("other")]) == [PRIVACY]
    assert issuer_iban_privacy(HELD, [iban("issuer"), iban("issuer"), iban("other")]) == [PRIVACY]
    # An IBAN that fails its check is no IBAN the detector counted: it neither counts for
    # the issuer nor keeps the stage.
    assert issuer_iban_privacy(HELD, [iban("issuer"), iban("issuer"), iban("other", False)]) == []
    assert issuer_iban_privacy(HELD, [iban("issuer"), iban("issuer", False)]) == [PRIVACY]
    # More of the issuer's than counted (a page the detector missed) is still all the issuer's.
    assert issuer_iban_privacy(HELD, [iban("issuer")] * 3) == []


# -- bank_details_stage: routed on BankCheck.holds only -----------------------------------

TREASURY = Stage("treasury", ("t@x",), 3600, 0)
ON = ControlRules(bank_details_stage="treasury")


def test_the_bank_details_stage_is_added_exactly_when_the_check_holds() -> None:
    stages = {"treasury": TREASURY}
    for verdict in (UNREGISTERED, OTHER_SUPPLIER, UNRECOGNIZED, UNREADABLE):
        assert bank_details_stage(BankCheck(verdict), ON, stages) == [
            RoutedStage(TREASURY, "bank-details")
        ], verdict
    for verdict in (REGISTERED, NO_PAYEE, UNKNOWN_SUPPLIER):
        assert bank_details_stage(BankCheck(verdict), ON, stages) == [], verdict
    held = BankCheck(UNKNOWN_SUPPLIER, hold_unknown=True)
    assert bank_details_stage(held, ON, stages) == [RoutedStage(TREASURY, "bank-details")]
    # No check (no registry), or no stage named: nothing to add.
    assert bank_details_stage(None, ON, stages) == []
    assert bank_details_stage(BankCheck(UNREGISTERED), ControlRules(), stages) == []


def test_unknown_payee_holds_only_when_the_rules_say_hold() -> None:
    assert holds_unknown(ControlRules(unknown_payee=HOLD))
    assert not holds_unknown(ControlRules(unknown_payee=PASS))
