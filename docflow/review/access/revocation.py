"""Revoked reviewers: one item per address in the links table, checked on every request.

    REVOKED#<address, lower case>   revokedAt (epoch seconds), by (who revoked: free text)

From the moment the item exists, every review link and inbox link naming that reviewer answers
403 with a page that says the link was revoked, and the notifier mails them nothing more. The
item is the whole interface, so in AWS an operator revokes with one table write (README,
"Revoking a reviewer"); `docflow reviewers revoke` writes the same item on the local stack.
Their pending stages keep their other reviewers; a vote the revoked reviewer can no longer
cast is simply never counted, so reminders and escalation treat them as not answering.
"""

from __future__ import annotations

import time
from typing import Any, TypedDict

from docflow import aws
from docflow.readmodel.table import to_ddb


class Revoked(TypedDict):
    """`docflow reviewers revoke --json`: who, and since when (epoch seconds)."""

    reviewer: str
    revokedAt: int


def revoked_pk(reviewer: str) -> str:
    return f"REVOKED#{reviewer.strip().lower()}"


class Revocations:
    def __init__(self, table: str) -> None:
        self.table = table

    @property
    def _ddb(self) -> Any:
        return aws.client("dynamodb")

    def revoke(self, reviewer: str, by: str = "") -> Revoked:
        """Revoke the reviewer's links (idempotent: the first revocation's time stands)."""
        answer = self._ddb.update_item(
            TableName=self.table,
            Key=to_ddb({"pk": revoked_pk(reviewer)}),
            UpdateExpression="SET revokedAt = if_not_exists(revokedAt, :now), #by = :by",
            ExpressionAttributeNames={"#by": "by"},
            ExpressionAttributeValues=to_ddb({":now": int(time.time()), ":by": by or "docflow"}),
            ReturnValues="ALL_NEW",
        )
        return {"reviewer": reviewer, "revokedAt": int(answer["Attributes"]["revokedAt"]["N"])}

    def is_revoked(self, reviewer: str) -> bool:
        item = self._ddb.get_item(
            TableName=self.table,
            Key=to_ddb({"pk": revoked_pk(reviewer)}),
            ConsistentRead=True,
            ProjectionExpression="pk",
        ).get("Item")
        return item is not None
