"""A supplier's history: one append-only item per change to the registry.

    pk = HISTORY#<supplierId>#<at>#<nonce>   listing = HISTORY#<supplierId>, listedAt = <at>#<nonce>

Each entry is written in the same transaction as the change it records (an import, an
approved proposal, a removal, a profile the learn step updated), on the condition that no item
has its key: an entry is never overwritten, and a change that did not land leaves none. The
entries of one supplier are a Query on the sparse `by-listing` index, oldest first; they
outlive the supplier, so a removal stays on record.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypedDict

from botocore.exceptions import ClientError

from docflow.dynamo import transaction_condition_failed
from docflow.readmodel.table import to_ddb

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

# What an entry records.
IMPORTED, REPLACED, APPROVED, REMOVED, PROFILE, RESET = (
    "imported",
    "replaced",
    "approved",
    "removed",
    "profile",
    "reset",  # an operator let a layout's suspended field learn again
)
# Who acted when no person did: the learn step, after an approved review.
LEARN_STEP = "docflow learn step"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def listing(supplier_id: str) -> str:
    return f"HISTORY#{supplier_id}"


class EntryJson(TypedDict):
    """A registry change as `docflow suppliers history --json` prints it."""

    at: str
    what: str
    by: str
    detail: str
    documentId: str | None
    version: str | None
    proposalId: str | None


@dataclass(frozen=True)
class Entry:
    supplier_id: str
    what: str
    by: str
    at: str
    detail: str = ""
    document_id: str = ""
    version: str = ""
    proposal_id: str = ""

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Entry:
        return cls(
            str(raw["supplierId"]),
            str(raw["what"]),
            str(raw.get("by") or ""),
            str(raw["at"]),
            str(raw.get("detail") or ""),
            str(raw.get("documentId") or ""),
            str(raw.get("version") or ""),
            str(raw.get("proposalId") or ""),
        )

    def to_json(self) -> EntryJson:
        return {
            "at": self.at,
            "what": self.what,
            "by": self.by,
            "detail": self.detail,
            "documentId": self.document_id or None,
            "version": self.version or None,
            "proposalId": self.proposal_id or None,
        }


def entry(supplier_id: str, what: str, by: str, detail: str = "", **source: str) -> Entry:
    """A new entry at this moment; `source`: document_id, version, proposal_id."""
    return Entry(supplier_id, what, by, now(), detail, **source)


def put_item(table: str, e: Entry) -> TransactWriteItemTypeDef:
    """The transaction item that appends `e` (never overwriting another entry)."""
    stamp = f"{e.at}#{secrets.token_hex(4)}"
    item = {
        "pk": f"{listing(e.supplier_id)}#{stamp}",
        "supplierId": e.supplier_id,
        **{k: v for k, v in e.to_json().items() if v not in (None, "")},
        "listing": listing(e.supplier_id),
        "listedAt": stamp,
    }
    return {
        "Put": {
            "TableName": table,
            "Item": to_ddb(item),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }


def write_noted(ddb: Any, table: str, change: TransactWriteItemTypeDef, e: Entry | None) -> bool:
    """Write `change` (conditional on the version its writer read) and its entry `e` in one
    transaction. False when another writer's change landed first: the caller reads it again and
    applies its change again."""
    items: list[TransactWriteItemTypeDef] = [change]
    if e is not None:
        items.append(put_item(table, e))
    try:
        ddb.transact_write_items(TransactItems=items)
    except ClientError as exc:
        if transaction_condition_failed(exc, 0):
            return False
        raise
    return True
