"""The review register: which run of a document is the newest, and which review waits are open.

A newer version of a document (new bytes under its key, or `docflow reprocess`) must end the
reviews of older runs: otherwise their links keep working and an old run could finalize
content that has been replaced. Two kinds of item, in the links table:

    REG#<documentId>          latestRunOrder, latestRunId, and `openWaits`: a string set of
                              "<runOrder>|<wait pk>", one per review stage still waiting
    STAGE#<runId>#<index>     one stage's wait: the stage record of `docflow.review.stage.records`
                              (the current callback id, the run and stage, the pks of its links
                              (token hashes), the votes, and once known how the stage ended)

Nothing stored is a working link: link pks are SHA-256 hashes of tokens. The order of writes
is what makes the race safe: a new run first raises `latestRunOrder`, then ends the waits it
finds; a stage registers its wait only while no newer run is recorded. Either the new run sees
the wait, or the wait sees the new run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Required, TypedDict

from docflow.dynamo import ConditionFailed, Table
from docflow.ids import DocumentRef
from docflow.review.stage.records import StageStore, end_open_wait
from docflow.review.stage.stage_record import Ending, StageRecord


class RegisterItem(TypedDict, total=False):
    """`REG#<documentId>` (module docstring); `openWaits` a string set, read back as a list."""

    pk: Required[str]
    latestRunOrder: str
    latestRunId: str
    openWaits: list[str]


@dataclass(frozen=True)
class OpenWait:
    run_order: str
    pk: str

    @property
    def entry(self) -> str:
        return f"{self.run_order}|{self.pk}"

    @classmethod
    def parse(cls, entry: str) -> OpenWait:
        run_order, _, pk = entry.rpartition("|")
        return cls(run_order, pk)


class RegisterStore:
    def __init__(self, table: str) -> None:
        self.table = table
        # One table, two kinds of item: the register's own, and the stage records it lists.
        self.items: Table[RegisterItem] = Table(table)
        self.stages: Table[StageRecord] = Table(table)

    def record_latest(self, doc: DocumentRef) -> bool:
        """Record this run as the document's newest; False if a newer one is already recorded."""
        return self.claim_newest(doc)[0]

    def claim_newest(self, doc: DocumentRef) -> tuple[bool, list[OpenWait]]:
        """`record_latest`, and the waits of older runs still open, from the same request: the
        update answers with the item after it (or, refused, the item as stored), so no read
        follows it. A wait an older run registers later is refused (`add_wait`)."""
        try:
            item = self.items.update(
                {"pk": f"REG#{doc.document_id}"},
                "SET latestRunOrder = :mine, latestRunId = :run",
                condition="attribute_not_exists(latestRunOrder) OR latestRunOrder <= :mine",
                values={":mine": doc.run_order, ":run": doc.run_id},
            )
            latest = True
        except ConditionFailed as refused:
            item, latest = self.items.held(refused) or {"pk": f"REG#{doc.document_id}"}, False
        return latest, _waits_before(item, doc)

    def is_latest(self, doc: DocumentRef) -> bool:
        item = self.items.get({"pk": f"REG#{doc.document_id}"})
        return item is None or str(item.get("latestRunOrder", "")) <= doc.run_order

    def open_waits_before(self, doc: DocumentRef) -> list[OpenWait]:
        item = self.items.get({"pk": f"REG#{doc.document_id}"})
        return _waits_before(item, doc) if item else []

    def add_wait(self, doc: DocumentRef, pk: str) -> bool:
        """List a stage's wait (its stage record, `docflow.review.stage.records`) as open; False
        (and the stage marked superseded) if a newer run already exists."""
        try:
            self.items.update(
                {"pk": f"REG#{doc.document_id}"},
                "ADD openWaits :entry",
                condition="attribute_not_exists(latestRunOrder) OR latestRunOrder <= :mine",
                values={":mine": doc.run_order},
                typed_values={":entry": {"SS": [OpenWait(doc.run_order, pk).entry]}},
            )
        except ConditionFailed:
            self.set_ending(pk, {"how": "superseded"})
            return False
        return True

    def end_wait(self, doc_id: str, wait: OpenWait) -> None:
        end_open_wait(self.items.client, self.table, doc_id, wait.entry)

    def get_wait(self, pk: str) -> StageRecord | None:
        return self.stages.get({"pk": pk})

    def set_ending(self, pk: str, ending: Ending) -> None:
        """How the stage ended (decided by whom, superseded); the first account stands. The
        stage leaves its reviewers' inboxes either way (a repeat finishes what a crash left)."""
        StageStore(self.table).set_ending(pk, ending)


def _waits_before(item: RegisterItem, doc: DocumentRef) -> list[OpenWait]:
    waits = [OpenWait.parse(e) for e in item.get("openWaits", [])]
    return sorted((w for w in waits if w.run_order < doc.run_order), key=lambda w: w.entry)
