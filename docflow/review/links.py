"""Review links: minting them once per (callback, reviewer), storing what they stand for, and
the notifier that mails them.

Two kinds of item in the links table:
    SLOT#<sha(callback id)>#<sha(reviewer)>  the link's non-secret parts (key id, nonce, expiry)
                                              and whether its e-mail went out
    LINK#<sha(token)>                         what the link stands for: the callback id, the
                                              document and stage, and its state
                                              (open -> deciding -> used, or superseded
                                              when a newer version replaced the document)
The read model, logs and metrics name a link only by `link_id`, a 12-character prefix of the
token's hash. (The stage's wait and the document's newest run are in `register`.)
Nothing stored is a working link: a token can be re-minted only with the signing key, and a
retried submitter re-mints the very same token from its slot (HMAC is deterministic), so a
replay sends no second e-mail and no second, different link.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.readmodel.table import from_ddb, to_ddb
from docflow.review.keys import KeySource, build_key_source
from docflow.review.mail import Mailer, SesMailer, review_email
from docflow.review.notifier import ReviewNotifier, ReviewRequest
from docflow.review.register import RegisterStore, wait_pk
from docflow.review.signing import Claims, KeyRing, mint, new_nonce, token_hash
from docflow.settings import Settings

OPEN, DECIDING, USED, SUPERSEDED = "open", "deciding", "used", "superseded"
# A claim that was never completed (the process died mid-decision) may be taken over after this.
CLAIM_TIMEOUT_S = 60
# Used links stay readable a while after expiry, so a second click still says "already used".
KEEP_AFTER_EXPIRY_S = 30 * 24 * 3600


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def link_id(token: str) -> str:
    """What the read model, logs and metrics may say about a link: a short hash of it."""
    return token_hash(token)[:12]


class SupersededRun(Exception):
    """A newer run of the document exists: this stage's links were closed, none mailed."""


class AlreadyDecided(Exception):
    def __init__(self, link: dict[str, Any]) -> None:
        super().__init__("the link was already used")
        self.link = link


@dataclass(frozen=True)
class IssuedLink:
    reviewer: str
    token: str
    mailed: bool

    @property
    def pk(self) -> str:
        return f"LINK#{token_hash(self.token)}"


class LinkStore:
    def __init__(self, table: str) -> None:
        self.table = table

    @property
    def _ddb(self) -> Any:
        return aws.client("dynamodb")

    def issue(self, request: ReviewRequest, reviewer: str, ring: KeyRing, ttl_s: int) -> IssuedLink:
        """The reviewer's link for this callback: minted once, re-minted identically after."""
        slot_key = {"pk": f"SLOT#{_sha(request.callback_id)}#{_sha(reviewer)[:32]}"}
        expires_at = int(time.time()) + ttl_s
        fresh = {
            **slot_key,
            "kid": ring.current,
            "nonce": new_nonce(),
            "linkExpiresAt": expires_at,
            "expiresAt": expires_at + KEEP_AFTER_EXPIRY_S,
        }
        try:
            self._ddb.put_item(
                TableName=self.table,
                Item=to_ddb(fresh),
                ConditionExpression="attribute_not_exists(pk)",
            )
            slot = fresh
        except ClientError as exc:
            if _code(exc) != "ConditionalCheckFailedException":
                raise
            slot = self._get(slot_key["pk"]) or fresh
        claims = Claims(
            document_id=request.doc.document_id,
            version=request.doc.version,
            run_id=request.doc.run_id,
            stage_index=request.stage_index,
            stage_name=request.stage_name,
            reviewer=reviewer,
            expires_at=int(slot["linkExpiresAt"]),
            nonce=str(slot["nonce"]),
        )
        token = mint(claims, KeyRing(current=str(slot["kid"]), keys=ring.keys))
        link = {
            "pk": f"LINK#{token_hash(token)}",
            "callbackId": request.callback_id,
            "documentId": request.doc.document_id,
            "version": request.doc.version,
            "runId": request.doc.run_id,
            "runOrder": request.doc.run_order,
            "bucket": request.doc.bucket,
            "key": request.doc.key,
            "stageIndex": request.stage_index,
            "stageName": request.stage_name,
            "reviewer": reviewer,
            "reviewers": list(request.stage["reviewers"]),
            "summary": request.summary,
            "waitPk": wait_pk(request.callback_id),
            "state": OPEN,
            "expiresAt": int(slot["linkExpiresAt"]) + KEEP_AFTER_EXPIRY_S,
        }
        try:
            self._ddb.put_item(
                TableName=self.table,
                Item=to_ddb(link),
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ClientError as exc:
            if _code(exc) != "ConditionalCheckFailedException":
                raise
        return IssuedLink(reviewer=reviewer, token=token, mailed="mailedAt" in slot)

    def mark_mailed(self, request: ReviewRequest, reviewer: str) -> None:
        self._ddb.update_item(
            TableName=self.table,
            Key=to_ddb({"pk": f"SLOT#{_sha(request.callback_id)}#{_sha(reviewer)[:32]}"}),
            UpdateExpression="SET mailedAt = :now",
            ExpressionAttributeValues=to_ddb({":now": int(time.time())}),
        )

    def close_superseded(self, pk: str) -> None:
        """A newer version replaced the document: the link stops working, unless a click
        already holds it (that click's callback then races the cancel; one of them wins)."""
        try:
            self._ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": pk}),
                UpdateExpression="SET #s = :superseded",
                ConditionExpression="#s = :open",
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues=to_ddb({":superseded": SUPERSEDED, ":open": OPEN}),
            )
        except ClientError as exc:
            if _code(exc) != "ConditionalCheckFailedException":
                raise

    def get(self, token: str) -> dict[str, Any] | None:
        return self._get(f"LINK#{token_hash(token)}")

    def claim(self, token: str) -> dict[str, Any]:
        """Take the link for a decision; exactly one concurrent caller wins."""
        now = int(time.time())
        try:
            answer = self._ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": f"LINK#{token_hash(token)}"}),
                UpdateExpression="SET #s = :deciding, claimedAt = :now",
                ConditionExpression=(
                    "attribute_exists(pk) AND "
                    "(#s = :open OR (#s = :deciding AND claimedAt < :stale))"
                ),
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues=to_ddb(
                    {
                        ":deciding": DECIDING,
                        ":open": OPEN,
                        ":now": now,
                        ":stale": now - CLAIM_TIMEOUT_S,
                    }
                ),
                ReturnValues="ALL_NEW",
            )
        except ClientError as exc:
            if _code(exc) == "ConditionalCheckFailedException":
                raise AlreadyDecided(self.get(token) or {}) from exc
            raise
        return from_ddb(answer["Attributes"])

    def complete(self, token: str, decision: dict[str, Any]) -> None:
        self._ddb.update_item(
            TableName=self.table,
            Key=to_ddb({"pk": f"LINK#{token_hash(token)}"}),
            UpdateExpression="SET #s = :used, decision = :decision",
            ExpressionAttributeNames={"#s": "state"},
            ExpressionAttributeValues=to_ddb({":used": USED, ":decision": decision}),
        )

    def release(self, token: str) -> None:
        """Give a claimed link back when the callback could not be sent for a passing reason."""
        self._ddb.update_item(
            TableName=self.table,
            Key=to_ddb({"pk": f"LINK#{token_hash(token)}"}),
            UpdateExpression="SET #s = :open REMOVE claimedAt",
            ConditionExpression="#s = :deciding",
            ExpressionAttributeNames={"#s": "state"},
            ExpressionAttributeValues=to_ddb({":open": OPEN, ":deciding": DECIDING}),
        )

    def _get(self, pk: str) -> dict[str, Any] | None:
        item = self._ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": pk}), ConsistentRead=True
        ).get("Item")
        return from_ddb(item) if item else None


class LinkNotifier:
    """The real notifier: a signed link per reviewer, mailed once."""

    def __init__(
        self,
        settings: Settings,
        keys: KeySource,
        links: LinkStore,
        mailer: Mailer,
        register: RegisterStore,
    ) -> None:
        self.settings = settings
        self.keys = keys
        self.links = links
        self.mailer = mailer
        self.register = register

    def url(self, token: str) -> str:
        return f"{self.settings.review_base_url.rstrip('/')}/review/{token}"

    def request_review(self, request: ReviewRequest) -> list[dict[str, str]]:
        """Mint each reviewer's link, register the stage's wait, then mail the links.

        Registering before mailing means a stage that a newer run has already superseded
        mails nothing: its links are closed and `SupersededRun` ends the stage.
        """
        ring = self.keys.ring()
        timeout = int(request.stage["timeoutSeconds"])
        ttl = min(self.settings.review_link_ttl_s, timeout + 60)
        reviewers = request.stage["reviewers"]
        issued = [self.links.issue(request, reviewer, ring, ttl) for reviewer in reviewers]
        registered = self.register.add_wait(
            request.doc,
            request.callback_id,
            request.stage_index,
            [link.pk for link in issued],
            int(time.time()) + timeout,
        )
        if not registered:
            for link in issued:
                self.links.close_superseded(link.pk)
            raise SupersededRun(f"a newer run of {request.doc.document_id} exists")
        for link in issued:
            if not link.mailed:
                subject, text, html = review_email(request, self.url(link.token))
                self.mailer.send(self.settings.review_sender, link.reviewer, subject, text, html)
                self.links.mark_mailed(request, link.reviewer)
        return [{"reviewer": link.reviewer, "linkId": link_id(link.token)} for link in issued]


def build_notifier(settings: Settings) -> ReviewNotifier:
    return LinkNotifier(
        settings,
        build_key_source(settings),
        LinkStore(settings.links_table),
        SesMailer(),
        RegisterStore(settings.links_table),
    )


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))
