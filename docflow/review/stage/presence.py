"""Presence: who is looking at a stage's document now, so colleagues do not do the same work.

A presence is an attribute of the stage record (`docflow.review.stage.records`), stored under
its original name `claim` (the table's shape, the inbox JSON's `claim` key and the setting
`DOCFLOW_REVIEW_CLAIM_S` keep it):

    claim = {"reviewer", "since", "until"}   epoch seconds; expired once `until` has passed

Opening the review page (GET, which also sends the execution's heartbeat) takes or renews the
reviewer's presence for `Settings.review_claim_s`; a release button (POST) gives it back.
Taking is one conditional update (nobody there, an expired presence, or the reviewer's own), so
two reviewers who open the document at once get one presence between them. A presence never
blocks a decision: the desk does not read it; the first valid decision still wins, once.
"""

from __future__ import annotations

import time

from docflow.dynamo import ConditionFailed, Table
from docflow.review.stage.stage_record import Presence, StageRecord


def live_presence(item: StageRecord, now: float | None = None) -> Presence | None:
    """Who is looking at the stage's document, if their presence has not expired."""
    presence = item.get("claim")
    now = time.time() if now is None else now
    return presence if presence and int(presence.get("until", 0)) > now else None


class PresenceStore:
    def __init__(self, table: str, presence_s: int) -> None:
        self.table, self.presence_s = table, presence_s
        self.items: Table[StageRecord] = Table(table)

    def take(self, stage_pk: str, reviewer: str) -> Presence | None:
        """Mark the reviewer as looking, or renew their presence; the presence that stands
        afterwards (someone else's, when theirs is live), or None if the stage has no record."""
        now = int(time.time())
        until = now + self.presence_s
        try:  # renew our own presence, keeping `since`
            return self._update(
                stage_pk,
                "SET claim.#until = :until",
                "attribute_exists(pk) AND attribute_not_exists(ending) AND claim.#who = :me",
                {":until": until, ":me": reviewer},
                {"#until": "until", "#who": "reviewer"},
            )
        except ConditionFailed:
            pass
        try:  # nobody there, or an expired presence: take it
            return self._update(
                stage_pk,
                "SET claim = :claim",
                "attribute_exists(pk) AND attribute_not_exists(ending) AND "
                "(attribute_not_exists(claim) OR claim.#until <= :now)",
                {":claim": {"reviewer": reviewer, "since": now, "until": until}, ":now": now},
                {"#until": "until"},
            )
        except ConditionFailed as refused:
            return live_presence(self.items.held(refused) or {})

    def release(self, stage_pk: str, reviewer: str) -> bool:
        """End the reviewer's presence; False if they were not the one looking."""
        try:
            self._update(
                stage_pk,
                "REMOVE claim",
                "attribute_exists(pk) AND claim.#who = :me",
                {":me": reviewer},
                {"#who": "reviewer"},
            )
        except ConditionFailed:
            return False
        return True

    def _update(
        self,
        pk: str,
        update: str,
        condition: str,
        values: dict[str, object],
        names: dict[str, str],
    ) -> Presence | None:
        item = self.items.update(
            {"pk": pk}, update, condition=condition, names=names, values=values
        )
        return live_presence(item)
