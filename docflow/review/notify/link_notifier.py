"""The notifier that asks reviewers: one signed link per reviewer, minted by the link store,
registered with the stage's current wait, listed in the reviewer's inbox, and mailed once per
(stage, reviewer, kind), unless the reviewer takes a digest instead or was revoked.

Nothing here is stored: the links live in `docflow.review.access.links`, the stage's votes and
current callback in `docflow.review.stage.records`, the document's newest run in
`docflow.review.stage.register`.
"""

from __future__ import annotations

import time

from docflow.review.access.keys import KeySource, build_key_source
from docflow.review.access.links import (
    IssuedLink,
    LinkStore,
    StageOver,
    SupersededRun,
    link_id,
)
from docflow.review.access.revocation import Revocations
from docflow.review.notify.mail import (
    Mailer,
    SesMailer,
    escalation_email,
    reminder_email,
    review_email,
)
from docflow.review.stage.inbox import DIGEST, InboxIndex, notify_mode
from docflow.review.stage.records import StageClosed, StageStore, stage_pk
from docflow.review.stage.register import RegisterStore
from docflow.review.stage.requests import ReviewNotifier, ReviewRequest
from docflow.settings import Settings


class LinkNotifier:
    """The real notifier: a signed link per reviewer, mailed once."""

    def __init__(
        self,
        settings: Settings,
        keys: KeySource,
        links: LinkStore,
        mailer: Mailer,
        register: RegisterStore,
        stages: StageStore | None = None,
    ) -> None:
        self.settings = settings
        self.keys = keys
        self.links = links
        self.mailer = mailer
        self.register = register
        self.stages = stages or StageStore(links.table)
        self.inbox = InboxIndex(links.table, settings.inbox_table)
        self.revocations = Revocations(links.table)

    def url(self, token: str) -> str:
        return f"{self.settings.review_base_url.rstrip('/')}/review/{token}"

    def request_review(self, request: ReviewRequest) -> list[dict[str, str]]:
        """One round of a stage: mint the links, make this round's callback the stage's
        current one, then send the round's e-mail (the request, a reminder, an escalation).

        Round 0 registers the stage's wait before mailing, so a stage that a newer run has
        already superseded mails nothing: its links are closed and `SupersededRun` ends it.
        A later round whose stage already has an ending raises `StageOver` and mails nothing.
        Each e-mail is sent once per (stage, reviewer, kind): the link's slot records it.
        """
        ring = self.keys.ring()
        stage, now = request.stage.stage, int(time.time())
        pk = stage_pk(request.doc.run_id, request.stage_index)
        if request.round == 0:
            self.stages.create(
                pk,
                {
                    "documentId": request.doc.document_id,
                    "runId": request.doc.run_id,
                    "runOrder": request.doc.run_order,
                    "stageIndex": request.stage_index,
                    "stageName": request.stage_name,
                },
                list(stage.reviewers),
                stage.quorum,
                now + stage.timeout_seconds,
            )
        record = self.stages.get(pk) or {}
        deadline = int(record.get("deadline") or now + stage.timeout_seconds)
        ttl = max(60, min(self.settings.review_link_ttl_s, deadline - now + 60))
        originals = list(stage.reviewers)
        extra = list(stage.escalate_to)
        escalated = request.escalate or any(r in record.get("reviewers", []) for r in extra)
        everyone = originals + extra if escalated else originals
        issued = [self.links.issue(request, reviewer, ring, ttl) for reviewer in everyone]
        try:
            if request.round == 0 and not self.register.add_wait(request.doc, pk):
                for link in issued:
                    self.links.close_superseded(link.pk)
                # The name leads the message: a failed submitter reaches the orchestrator as a
                # CallbackSubmitterError that keeps only the message, not the error's type.
                raise SupersededRun(f"SupersededRun: a newer run of {request.doc.document_id}")
            if request.escalate:
                self.stages.escalate(pk, everyone)
            wait = request.wait_s or stage.timeout_seconds
            record = self.stages.register_round(
                pk, request.callback_id, request.round, now + wait, [x.pk for x in issued]
            )
        except StageClosed as exc:
            raise StageOver(f"StageOver: stage {request.stage_index} already ended") from exc
        voted = set((record.get("votes") or {}).keys())
        for link in issued:
            if link.reviewer in voted:
                continue
            # Listed before any mail goes: a digest reviewer's only notice is their inbox.
            self.inbox.add(
                link.slot_pk, link.reviewer, pk, self._inbox_facts(request, link, deadline)
            )
            if notify_mode(request.stage, link.reviewer) == DIGEST:
                continue  # the digest job mails them (docflow.review.notify.digest)
            if self.revocations.is_revoked(link.reviewer):
                continue
            self._mail(request, link, link.reviewer in extra, extra)
        return [{"reviewer": link.reviewer, "linkId": link_id(link.token)} for link in issued]

    def _inbox_facts(
        self, request: ReviewRequest, link: IssuedLink, deadline: int
    ) -> dict[str, object]:
        """What the reviewer's inbox shows of this stage, and what re-mints the link."""
        shown = request.shown
        because = shown.because(request.stage_index)
        extra = list(request.stage.stage.escalate_to)
        return {
            "documentId": request.doc.document_id,
            "version": request.doc.version,
            "runId": request.doc.run_id,
            "stageIndex": request.stage_index,
            "stageName": request.stage_name,
            "docName": request.doc.display_name,
            # Where it was uploaded: two items named alike are told apart by their folder.
            # (a packet's part: its packet's folder, not the part's own under `packets/`).
            "docFolder": _folder(request.doc.part.packet_key if request.doc.part else "")
            or _folder(request.doc.key),
            "docType": shown.summary.doc_type or "unknown",
            "why": "escalated" if link.reviewer in extra else str(because or "rules"),
            "deadline": deadline,
            "notify": notify_mode(request.stage, link.reviewer),
        }

    def _mail(
        self, request: ReviewRequest, link: IssuedLink, added: bool, extra: list[str]
    ) -> None:
        """This round's e-mail to one reviewer who has not voted, unless it already went out."""
        url = self.url(link.token)
        if "request" not in link.sent:  # round 0, or an escalation reviewer's first e-mail
            tags, message = {"request"}, review_email(request, url)
        elif request.escalate and not added:
            # One message to an original reviewer: the escalation notice, with their link.
            tags = {"escalated"} | ({f"remind-{request.reminder}"} if request.reminder else set())
            message = escalation_email(request, url, extra)
        elif request.reminder and not (added and request.escalate):
            tags = {f"remind-{request.reminder}"}
            message = reminder_email(request, url)
        else:
            return
        if tags <= link.sent:
            return
        subject, text, html = message
        self.mailer.send(self.settings.review_sender, link.reviewer, subject, text, html)
        self.links.mark_sent(request, link.reviewer, tags)


def build_notifier(settings: Settings) -> ReviewNotifier:
    return LinkNotifier(
        settings,
        build_key_source(settings),
        LinkStore(settings.links_table),
        SesMailer(),
        RegisterStore(settings.links_table),
    )


def _folder(key: str) -> str:
    return key.rsplit("/", 1)[0] if "/" in key else ""
