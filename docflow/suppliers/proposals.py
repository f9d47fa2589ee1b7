"""Supplier proposals: the supplier master changes only with four eyes.

A fields reviewer's "add this supplier" writes no supplier. The pipeline's `propose supplier`
step files a proposal (the name printed on the page, the checked ids it prints for its issuer,
the document and version it came from, the reviewer who proposed it), and an operator approves
or rejects it from `docflow suppliers`; the approver must not be the proposer
(`four_eyes`: the principal the operator authenticated as, compared with the proposer's address
through the rules file's `[people]` table).

    pk = PROPOSAL#<proposalId>   listing = "PROPOSAL", listedAt = <proposedAt>#<proposalId>

A proposal carries two names: the one the page prints (as the engine read it) and, when the
reviewer corrected the vendor, the one the reviewer approved (`reviewer_name`): the printed
title of a viewer, or a contact person's name printed where the issuer's belongs, is what a
reviewer corrects. The operator approves one of them (`approve(..., name=PRINTED|REVIEWER)`;
with two different names and no choice, approving is refused): the registry never takes a
name over what a reviewer corrected without an operator choosing it. Both names are checked
for conflicts when the proposal is filed.

The proposal id comes from the document version, so the step running twice files one
proposal (a put on the condition that none has its key). A proposal never merges into a
registered supplier: one whose supplier id, name (rapidfuzz on the folded names and on their
confusables skeletons, as `match` names the issuer: `Вlauwal` with a Cyrillic Ve is Blauwal)
or any id is a registered supplier's, or whose name mixes scripts in one word, or holds a
character that renders as nothing, is filed as a `conflict`, saying why, and is resolved by
hand (reject it; fix the registry by import). Approving checks again, then creates the
supplier with its claims, its history entry and the proposal's new status in one transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from docflow import names
from docflow.aws import error_code
from docflow.dynamo import put_new
from docflow.readmodel.table import from_ddb, to_ddb
from docflow.rules.people import NO_PEOPLE, People
from docflow.suppliers import history
from docflow.suppliers.four_eyes import approver_problem
from docflow.suppliers.ids import masked_iban
from docflow.suppliers.match import name_match
from docflow.suppliers.model import Supplier, SupplierError
from docflow.suppliers.shapes import ProposalJson
from docflow.suppliers.store import ClaimConflict, SupplierExists, SupplierStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef, UpdateTypeDef

LISTING = "PROPOSAL"
PENDING, CONFLICT, APPROVED, REJECTED = "pending", "conflict", "approved", "rejected"
OPEN = (PENDING, CONFLICT)
PRINTED, REVIEWER = "printed", "reviewer"  # which of a proposal's names an operator approves


class ProposalRefused(ValueError):
    """An approval or rejection docflow refuses (its own proposer, a conflict, decided)."""


class ProposalNotFound(LookupError):
    def __init__(self, proposal_id: str) -> None:
        super().__init__(f"no proposal {proposal_id}")


def proposal_id(document_id: str, version: str) -> str:
    return "p-" + hashlib.sha256(f"{document_id}#{version}".encode()).hexdigest()[:12]


def proposal_pk(pid: str) -> str:
    return f"PROPOSAL#{pid}"


def shown_key(key: str) -> str:
    """A `kind:value` as people may see it: an IBAN masked to its last four."""
    kind, _, value = key.partition(":")
    return f"iban:{masked_iban(value)}" if kind == "iban" else key


@dataclass(frozen=True)
class Proposal:
    proposal_id: str
    name: str  # as the page prints it with its ids, never what a reviewer typed
    ids: dict[str, tuple[str, ...]]
    currency: str
    document_id: str
    version: str
    proposer: str
    proposed_at: str
    status: str = PENDING
    conflict: str = ""
    decided_by: str = ""
    decided_at: str = ""
    reason: str = ""
    # The vendor name the reviewer approved where it is not the printed one ("" when they
    # left the printed name standing).
    reviewer_name: str = ""

    @property
    def names(self) -> dict[str, str]:
        """The names an operator may approve it under: the printed one, and the reviewer's
        when it differs."""
        out = {PRINTED: self.name}
        if self.reviewer_name and self.reviewer_name != self.name:
            out[REVIEWER] = self.reviewer_name
        return out

    def supplier(self, name: str | None = None) -> Supplier:
        return Supplier.parse(
            {"name": name or self.name, "ids": {k: list(v) for k, v in self.ids.items()}}
            | {"currency": self.currency}
        )

    @property
    def keys(self) -> list[str]:
        return [f"{k}:{v}" for k, vs in self.ids.items() for v in vs]

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Proposal:
        return cls(
            str(raw["proposalId"]),
            str(raw["name"]),
            {k: tuple(str(x) for x in v) for k, v in (raw.get("ids") or {}).items()},
            str(raw.get("currency") or ""),
            str(raw.get("documentId") or ""),
            str(raw.get("version") or ""),
            str(raw.get("proposer") or ""),
            str(raw["proposedAt"]),
            str(raw.get("status") or PENDING),
            str(raw.get("conflict") or ""),
            str(raw.get("decidedBy") or ""),
            str(raw.get("decidedAt") or ""),
            str(raw.get("reason") or ""),
            str(raw.get("reviewerName") or ""),
        )

    def to_json(self, masked: bool = False) -> ProposalJson:
        """The stored shape; `masked`: IBANs shown to their last four (what the CLI prints)."""
        ids = {k: list(v) for k, v in self.ids.items()}
        if masked and "iban" in ids:
            ids["iban"] = [masked_iban(v) for v in ids["iban"]]
        return {
            "proposalId": self.proposal_id,
            "name": self.name,
            "ids": ids,
            "currency": self.currency or None,
            "documentId": self.document_id,
            "version": self.version,
            "proposer": self.proposer,
            "proposedAt": self.proposed_at,
            "status": self.status,
            "conflict": self.conflict or None,
            "decidedBy": self.decided_by or None,
            "decidedAt": self.decided_at or None,
            "reason": self.reason or None,
            "reviewerName": self.reviewer_name or None,
        }


def conflicts_with(store: SupplierStore, supplier: Supplier) -> str:
    """What in the registry `supplier` would merge into or duplicate ("" when nothing)."""
    found: list[str] = []
    mixed = names.mixed_words(supplier.name)
    if mixed:
        seen = ", ".join(sorted(names.scripts(mixed[0]))).title()
        found.append(f"the name mixes scripts in one word ({mixed[0]!r}: {seen})")
    if store.get(supplier.supplier_id) is not None:
        found.append(f"supplier id {supplier.supplier_id!r} is registered")
    named = name_match(store, supplier.name)
    if named is not None:
        score, other = named
        found.append(
            f"the name matches registered supplier {other.supplier_id!r} "
            f"({other.name}, score {round(score, 1)})"
        )
    for key in supplier.keys:
        holder = store.holder(key)
        if holder is not None:
            found.append(f"{shown_key(key)} belongs to supplier {holder!r}")
    return "; ".join(found)


def get(store: SupplierStore, pid: str) -> Proposal | None:
    got = store.ddb.get_item(
        TableName=store.table, Key=to_ddb({"pk": proposal_pk(pid)}), ConsistentRead=True
    ).get("Item")
    return Proposal.parse(from_ddb(got)) if got else None


def listed(store: SupplierStore) -> list[Proposal]:
    """Every proposal, oldest first."""
    return [Proposal.parse(i) for i in store.listed(LISTING)]


def propose(store: SupplierStore, proposal: Proposal) -> Proposal:
    """File `proposal` (as a conflict when it collides with the registry); the proposal
    already filed for its document version when there is one."""
    filed = get(store, proposal.proposal_id)
    if filed is not None:
        return filed
    found: list[str] = []
    for which, name in proposal.names.items():
        try:
            said = conflicts_with(store, proposal.supplier(name))
        except SupplierError as exc:
            said = str(exc)
        if said:
            found.append(said if which == PRINTED else f"the reviewer's name: {said}")
    conflict = "; ".join(dict.fromkeys(found))
    if conflict:
        proposal = replace(proposal, status=CONFLICT, conflict=conflict)
    item = {
        "pk": proposal_pk(proposal.proposal_id),
        **{k: v for k, v in proposal.to_json().items() if v is not None},
        "listing": LISTING,
        "listedAt": f"{proposal.proposed_at}#{proposal.proposal_id}",
    }
    if not put_new(store.ddb, store.table, item):
        return get(store, proposal.proposal_id) or proposal
    return proposal


def _decided(
    store: SupplierStore, p: Proposal, status: str, by: str, **more: str
) -> TransactWriteItemTypeDef:
    """The transaction item moving `p` from its status to `status`, on the condition that
    its status has not changed meanwhile."""
    at = history.now()
    return {"Update": _status_update(store, p, status, decidedBy=by, decidedAt=at, **more)}


def _status_update(store: SupplierStore, p: Proposal, status: str, **sets: str) -> UpdateTypeDef:
    """An update moving `p` from the status it was read with to `status`, setting `sets`.
    Every attribute goes by a placeholder: `status` and `conflict` are DynamoDB reserved
    words, which an expression may not name."""
    placeholders = {"#s": "status"} | {f"#{k}": k for k in sets}
    values = {":s": status, ":was": p.status} | {f":{k}": v for k, v in sets.items()}
    assigned = ", ".join(["#s = :s", *(f"#{k} = :{k}" for k in sets)])
    return {
        "TableName": store.table,
        "Key": to_ddb({"pk": proposal_pk(p.proposal_id)}),
        "UpdateExpression": f"SET {assigned}",
        "ConditionExpression": "#s = :was",
        "ExpressionAttributeNames": placeholders,
        "ExpressionAttributeValues": to_ddb(values),
    }


def _mark_conflict(store: SupplierStore, p: Proposal, conflict: str) -> None:
    """`p` is a conflict now; ProposalRefused when another operator decided it meanwhile."""
    try:
        store.ddb.update_item(**_status_update(store, p, CONFLICT, conflict=conflict))
    except Exception as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
        now = get(store, p.proposal_id)
        raise ProposalRefused(
            f"proposal {p.proposal_id} is {now.status if now else 'gone'}: decided meanwhile"
        ) from exc


def approve(
    store: SupplierStore,
    pid: str,
    by: str,
    people: People = NO_PEOPLE,
    name: str | None = None,
) -> Supplier:
    """Create the proposed supplier under the name the operator chose (`name`: PRINTED or
    REVIEWER; may be left out when the proposal has one name), recording who approved it
    (`by`: the principal the operator authenticated as); ProposalRefused when `by` is the
    proposer's person (`four_eyes`, with the rules' `people`), it is not pending, it has two
    names and none was chosen, or the registry now conflicts with it (it is then marked a
    conflict)."""
    p = get(store, pid)
    if p is None:
        raise ProposalNotFound(pid)
    if p.status != PENDING:
        why = f": {p.conflict}; resolve it by hand" if p.status == CONFLICT else ""
        raise ProposalRefused(f"proposal {pid} is {p.status}{why}")
    problem = approver_problem(by, p.proposer, people)
    if problem:
        raise ProposalRefused(f"proposal {pid}: {problem}")
    chosen = _chosen_name(p, name)
    try:
        supplier = p.supplier(chosen)
    except SupplierError as exc:  # filed before today's checks of a name
        _mark_conflict(store, p, str(exc))
        raise ProposalRefused(f"proposal {pid} cannot be a supplier: {exc}") from exc
    conflict = conflicts_with(store, supplier)
    if not conflict:
        note = history.entry(
            supplier.supplier_id,
            history.APPROVED,
            by,
            f"proposed by {p.proposer}: {supplier.name}; ids "
            + ", ".join(shown_key(k) for k in supplier.keys),
            document_id=p.document_id,
            version=p.version,
            proposal_id=p.proposal_id,
        )
        decided = _decided(store, p, APPROVED, by, supplierId=supplier.supplier_id)
        try:
            store.put(supplier, note, create=True, also=[decided])
            return supplier
        except (SupplierExists, ClaimConflict) as exc:
            conflict = str(exc)  # registered between the check and the write
    _mark_conflict(store, p, conflict)
    raise ProposalRefused(f"proposal {pid} conflicts with the registry: {conflict}")


def _chosen_name(p: Proposal, name: str | None) -> str:
    names = p.names
    if name is None:
        if len(names) > 1:
            raise ProposalRefused(
                f"proposal {p.proposal_id} has two names: printed {names[PRINTED]!r}, the "
                f"reviewer's {names[REVIEWER]!r}; approve it with --name printed or --name "
                "reviewer"
            )
        return names[PRINTED]
    if name not in names:
        raise ProposalRefused(f"proposal {p.proposal_id} has no {name} name")
    return names[name]


def reject(store: SupplierStore, pid: str, by: str, reason: str = "") -> Proposal:
    """Close an open proposal (pending or conflict) without touching the registry."""
    p = get(store, pid)
    if p is None:
        raise ProposalNotFound(pid)
    if p.status not in OPEN:
        raise ProposalRefused(f"proposal {pid} is {p.status} already")
    if not by.strip():
        raise ProposalRefused("who rejects it? docflow found no principal to record")
    store.ddb.transact_write_items(
        TransactItems=[_decided(store, p, REJECTED, by, reason=reason or "-")]
    )
    return get(store, pid) or p
