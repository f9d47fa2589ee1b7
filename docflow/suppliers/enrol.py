"""A supplier a fields reviewer proposes from the document in front of them ("add this
supplier"): a proposal an operator approves (`proposals`), never a registry write.

The reviewer only says yes: the proposal names what the page prints (as the engine read it)
and, when the reviewer corrected the vendor, the name they approved beside it (an operator
approves one of the two: `proposals`); the currency is the one they approved, and the ids are
the ones the document itself prints for its issuer, found and checked again here (checked tax
ids outside the customer's block, IBANs judged the issuer's). So a page can propose no id the
document does not show, and no name becomes a supplier's without an operator choosing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docflow.document import Field
from docflow.document.shown import ProposalAnswer, ProposalShown
from docflow.extract.rules_engine.layout import Page
from docflow.suppliers import history, proposals
from docflow.suppliers.match import issuer_tax_ids
from docflow.suppliers.model import Supplier, SupplierError
from docflow.suppliers.ownership import ISSUER, judge_ibans
from docflow.suppliers.store import SupplierStore


@dataclass(frozen=True)
class Proposed:
    """The step's outcome: the proposal as the summary shows it, or why none was filed."""

    shown: ProposalShown | None
    refused: str = ""

    def to_json(self) -> ProposalAnswer:
        return (
            {"supplierProposed": self.shown} if self.shown else {"supplierNotAdded": self.refused}
        )


def issuer_ids(layouts: Sequence[Page], name: str) -> dict[str, list[str]]:
    """The checked ids the document prints for its issuer, by kind (IBANs last)."""
    ids: dict[str, list[str]] = {}
    for found in issuer_tax_ids(layouts):
        if found.valid and found.value not in ids.get(found.kind, []):
            ids.setdefault(found.kind, []).append(found.value)
    for iban in judge_ibans(layouts, name):
        if iban.valid and iban.owner == ISSUER and iban.value not in ids.get("iban", []):
            ids.setdefault("iban", []).append(iban.value)
    return ids


def printed_name(fields: Mapping[str, Field]) -> str:
    """The issuer's name as the engine read it from the page: never a value a reviewer typed
    (a corrected field keeps the read one as `original`; a registry name keeps the page's as
    `printed`)."""
    f = fields.get("vendor_name")
    if f is None:
        return ""
    if f.source == "registry":
        return str(f.printed or "").strip()
    read = f.original if f.corrected else f.value
    return str(read or "").strip()


def reviewer_name(fields: Mapping[str, Field]) -> str:
    """The vendor name the reviewer approved where they corrected the read one ("" when they
    left it standing)."""
    f = fields.get("vendor_name")
    if f is None or not f.corrected or f.original == f.value:
        return ""
    return f.text


def propose_from_page(
    store: SupplierStore,
    layouts: Sequence[Page],
    fields: Mapping[str, Field],
    source: tuple[str, str],
    proposer: str,
) -> Proposed:
    """File a proposal for the issuer under the name the page prints, with the checked ids
    the pages print for it; `source` = (document id, version). Safe to run twice: one
    proposal per document version."""
    name = printed_name(fields)
    if not name:
        return Proposed(None, "the page prints no issuer name docflow could read")
    ids = issuer_ids(layouts, name)
    if not ids:
        return Proposed(None, "the document prints no checked id of its issuer")
    currency = str(fields["currency"].value or "") if "currency" in fields else ""
    corrected = reviewer_name(fields)
    try:
        Supplier.parse({"name": name, "ids": ids, "currency": currency})
        if corrected:
            Supplier.parse({"name": corrected, "ids": ids, "currency": currency})
    except SupplierError as exc:
        return Proposed(None, str(exc))
    document_id, version = source
    filed = proposals.propose(
        store,
        proposals.Proposal(
            proposals.proposal_id(document_id, version),
            name,
            {k: tuple(v) for k, v in ids.items()},
            currency,
            document_id,
            version,
            proposer,
            history.now(),
            reviewer_name=corrected,
        ),
    )
    return Proposed(
        {
            "proposalId": filed.proposal_id,
            "name": filed.name,
            "reviewerName": filed.reviewer_name or None,
            "status": filed.status,
            "conflict": filed.conflict or None,
        }
    )
