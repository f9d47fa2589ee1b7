"""The edges of supplier proposals (`docflow/suppliers/proposals.py`): what a stored proposal
reads back as, both names checked when it is filed (each conflict said once, the reviewer's
said as theirs), a proposal filed by another run between this one's read and its write, what an
approval records (the history entry's source, the supplier it made, when it was decided), and a
supplier registered between the approval's check and its write, which the approval never
overwrites. Each test names the boundary it guards (bench/README.md, "Mutation testing")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docflow.readmodel.table import from_ddb, to_ddb
from docflow.suppliers import proposals
from docflow.suppliers.csv_import import import_suppliers
from docflow.suppliers.proposals import Proposal
from docflow.suppliers.store import SupplierStore
from tests.suppliers.papers import BLAUWAL_NAME, BLAUWAL_VAT, OTHER_VAT

NAME = BLAUWAL_NAME
IBAN = "GB82WEST12345698765432"


def proposal(name: str = "Kranich Druck AG", vat: str = OTHER_VAT, **more: str) -> Proposal:
    return Proposal(
        proposals.proposal_id(f"d-{name}", "v-1"),
        name,
        {"vat": (vat,), "iban": (IBAN,)},
        "EUR",
        f"d-{name}",
        "v-1",
        "ap@example.com",
        "2026-12-01",
        **more,
    )


def test_a_decided_proposal_reads_back_whole_and_a_bare_one_reads_empty() -> None:
    decided = replace(
        proposal(),
        status="rejected",
        decided_by="controller",
        decided_at="2026-12-02T10:00:00Z",
        reason="a typo",
        reviewer_name="Kranich Druck GmbH",
    )
    assert Proposal.parse(decided.to_json()) == decided
    bare = Proposal.parse({"proposalId": "p-1", "name": "X", "proposedAt": "t"})
    assert (bare.document_id, bare.version, bare.decided_at, bare.decided_by) == ("", "", "", "")


def test_the_reviewers_name_is_checked_too_and_said_as_theirs(registry: SupplierStore) -> None:
    # The printed name is free; the name the reviewer approved is a registered supplier's.
    filed = proposals.propose(registry, proposal(reviewer_name="Blauwal Hafenlogistik AG"))
    assert (filed.status, filed.conflict) == (
        "conflict",
        "the reviewer's name: the name matches registered supplier 'blauwal' "
        f"({NAME}, score 100.0)",
    )


def test_each_names_conflicts_are_joined_once_each(registry: SupplierStore) -> None:
    # Both names clash: the printed one by its name and its VAT id, the reviewer's by its VAT
    # id only (said once, as the reviewer's).
    clash = proposal(
        name="Blauwal Hafenlogistik AG", vat=BLAUWAL_VAT, reviewer_name="Reiher Medien KG"
    )
    filed = proposals.propose(registry, clash)
    name = f"the name matches registered supplier 'blauwal' ({NAME}, score 100.0)"
    vat = f"vat:{BLAUWAL_VAT} belongs to supplier 'blauwal'"
    assert filed.conflict == f"{name}; {vat}; the reviewer's name: {vat}"


def test_a_proposal_another_run_filed_first_is_the_one_answered(
    registry: SupplierStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs of one document version file at once: the second's read finds nothing, its
    put finds the first's proposal there, and it answers the first's, never its own."""
    first = proposals.propose(registry, proposal())
    real_get = proposals.get
    reads: list[str] = []

    def get_missing_first(store: SupplierStore, pid: str) -> Proposal | None:
        reads.append(pid)
        return None if len(reads) == 1 else real_get(store, pid)

    monkeypatch.setattr(proposals, "get", get_missing_first)
    second = proposals.propose(registry, replace(first, name="Changed Name AG"))
    assert second == first
    assert reads == [first.proposal_id, first.proposal_id]
    assert real_get(registry, first.proposal_id) == first


def test_an_approval_records_its_source_its_supplier_and_when(registry: SupplierStore) -> None:
    p = proposals.propose(registry, proposal())
    supplier = proposals.approve(registry, p.proposal_id, "controller")
    (note,) = registry.history_of(supplier.supplier_id)
    assert (note.document_id, note.version, note.proposal_id, note.by) == (
        p.document_id,
        p.version,
        p.proposal_id,
        "controller",
    )
    assert note.detail == (
        f"proposed by ap@example.com: Kranich Druck AG; ids vat:{OTHER_VAT}, iban:GB•••• 5432"
    )
    raw = registry.ddb.get_item(
        TableName=registry.table, Key=to_ddb({"pk": proposals.proposal_pk(p.proposal_id)})
    )["Item"]
    stored = from_ddb(raw)
    assert stored["supplierId"] == supplier.supplier_id
    assert stored["decidedBy"] == "controller" and stored["decidedAt"] >= note.at


def test_a_rejection_records_when_it_was_decided(registry: SupplierStore) -> None:
    p = proposals.propose(registry, proposal())
    rejected = proposals.reject(registry, p.proposal_id, "controller")
    assert rejected.decided_at.startswith("20") and rejected.decided_at >= p.proposed_at


def test_a_supplier_registered_between_the_check_and_the_write_is_never_overwritten(
    registry: SupplierStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = proposals.propose(registry, proposal())
    supplier = p.supplier()
    # Another operator registers a supplier of the same id (other ids) after the approval's
    # check found nothing: the write must not replace it.
    import_suppliers(registry, f"id,name,vat\n{supplier.supplier_id},Kranich Druck AG,\n")
    before = registry.get(supplier.supplier_id)
    monkeypatch.setattr(proposals, "conflicts_with", lambda store, s: "")
    why = f"supplier {supplier.supplier_id!r} is registered already"
    with pytest.raises(proposals.ProposalRefused) as refused:
        proposals.approve(registry, p.proposal_id, "controller")
    assert str(refused.value) == f"proposal {p.proposal_id} conflicts with the registry: {why}"
    assert registry.get(supplier.supplier_id) == before
    marked = proposals.get(registry, p.proposal_id)
    assert marked is not None and (marked.status, marked.conflict) == ("conflict", why)


def test_two_names_and_no_choice_is_refused_saying_how_to_choose(registry: SupplierStore) -> None:
    p = proposals.propose(registry, proposal(reviewer_name="Kranich Druckerei GmbH"))
    with pytest.raises(proposals.ProposalRefused) as refused:
        proposals.approve(registry, p.proposal_id, "controller")
    assert str(refused.value) == (
        f"proposal {p.proposal_id} has two names: printed 'Kranich Druck AG', the reviewer's "
        "'Kranich Druckerei GmbH'; approve it with --name printed or --name reviewer"
    )


def test_a_lookalike_names_score_is_said_to_a_tenth(registry: SupplierStore) -> None:
    filed = proposals.propose(registry, proposal(name="Blauwal Hafenlogistic"))
    assert filed.conflict == f"the name matches registered supplier 'blauwal' ({NAME}, score 95.2)"


def test_the_supplier_an_approval_makes_keeps_the_proposals_currency(
    registry: SupplierStore,
) -> None:
    p = proposals.propose(registry, replace(proposal(), currency="CHF"))
    supplier = proposals.approve(registry, p.proposal_id, "controller")
    stored = registry.get(supplier.supplier_id)
    assert supplier.currency == "CHF" and stored is not None and stored.currency == "CHF"


def test_a_proposal_is_read_consistently() -> None:
    """An operator deciding right after a run filed it reads what was filed: the read is a
    consistent one (DynamoDB's default is eventually consistent)."""
    asked: list[dict[str, object]] = []

    class Client:
        def get_item(self, **args: object) -> dict[str, object]:
            asked.append(args)
            return {}

    assert proposals.get(SupplierStore("registry", Client()), "p-1") is None
    assert asked == [
        {"TableName": "registry", "Key": {"pk": {"S": "PROPOSAL#p-1"}}, "ConsistentRead": True}
    ]
