"""The read model's single table: key layout, sparse indexes and (de)serialization.

    pk = DOC#<documentId>   sk = STATE                                  current state
    pk = DOC#<documentId>   sk = EVENT#<runOrder>#<seq>#<eventId>       history, in run order
    pk = DOC#<packetId>     sk = CHILD#<documentId>                     a packet's part: its
                                                                        status, mirrored from
                                                                        the part's own state

Sparse global secondary indexes hold only the items a dashboard question is about:
    pending  (pendingPk = "PENDING", pendingSince)  documents waiting on a reviewer
    active   (activePk  = "ACTIVE",  updatedAt)     non-terminal documents, oldest first
    failed   (failedPk  = "FAILED",  failedAt)      failed documents
    orders   (orderPk   = "ORDER#<number>", updatedAt)  finalized purchase orders by their
                                                    number, for the invoices that cite them
The table itself is declared once, in template.yaml; `docflow.local.resources` creates it from
there for the local stack and the tests.
"""

from __future__ import annotations

# The item (de)serialization and the conditional put live in docflow.dynamo with the other
# DynamoDB helpers; re-exported here for the modules that import them from the read model.
from docflow.dynamo import from_ddb, put_new, to_ddb

__all__ = ["from_ddb", "put_new", "to_ddb"]

STATE_SK = "STATE"
PENDING_INDEX = "pending"
ACTIVE_INDEX = "active"
FAILED_INDEX = "failed"
ORDERS_INDEX = "orders"
TTL_ATTRIBUTE = "expiresAt"
# On the current state: the event id whose domain event was published (docflow.events), so a
# second report of one transition (the orchestrator's copy of a decision the callback API
# reported first) is not announced twice.
ANNOUNCED_ATTRIBUTE = "announcedEventId"


def doc_pk(document_id: str) -> str:
    return f"DOC#{document_id}"


def child_sk(document_id: str) -> str:
    """A packet's part, in the packet's partition (the packet lists its parts by one Query)."""
    return f"CHILD#{document_id}"


# What a packet's part mirrors of its current state into the packet's partition.
CHILD_FIELDS = (
    "documentId",
    "key",
    "status",
    "stageName",
    "docType",
    "reason",
    "parentPages",
    "parentKey",
    "runId",
    "updatedAt",
)


def order_pk(number: str) -> str:
    """The `orders` index key of a purchase order's number: upper case, no spaces, so
    `po 4711` and `PO4711` are one order."""
    return "ORDER#" + "".join(number.split()).upper()


def history_sk(run_order: str, seq: int, event_id: str) -> str:
    return f"EVENT#{run_order}#{seq:07d}#{event_id}"
