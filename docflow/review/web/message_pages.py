"""The short pages after an action or instead of one: a decision recorded, a presence released, a
link refused (with how the stage ended, when it did)."""

from __future__ import annotations

from docflow.review.access.link_record import LinkRecord
from docflow.review.stage.triage import UNCLASSIFIABLE
from docflow.review.votes import Counted
from docflow.review.web.templating import env, when_iso


def message_page(
    title: str, lines: list[str], closing: str = "", values: list[tuple[str, str]] | None = None
) -> str:
    return env.get_template("message.html").render(
        title=title, lines=lines, closing=closing, values=values or []
    )


def decided_page(
    decision: Counted,
    reasons: dict[str, str],
    next_item: dict[str, str] | None = None,
    inbox_url: str = "",
    values: list[tuple[str, str]] | None = None,
) -> str:
    """The confirmation; from the inbox, with the next item (focused: Enter opens it).
    `values`: the key fields approved, (label, value as shown), repeated for the record."""
    page = _decided(decision, reasons)
    if values and decision.get("approved"):
        table = env.get_template("values.html").render(values=values)
        page = page.replace('<p class="note">', table + '<p class="note">', 1)
    if not inbox_url:
        return page
    nav = env.get_template("next.html").render(next_item=next_item, inbox_url=inbox_url)
    return page.replace("</main>", nav + "</main>", 1)


def released_page(name: str, inbox_url: str = "", back: str = "") -> str:
    lines = [f"You released {name}: other reviewers no longer see you on it."]
    page = message_page("Released", lines, "Opening the document again claims it again.")
    if not inbox_url:
        return page
    nav = env.get_template("next.html").render(next_item=None, inbox_url=inbox_url)
    return page.replace("</main>", nav + "</main>", 1)


def _decided(decision: Counted, reasons: dict[str, str]) -> str:
    verb = "approved" if decision.get("approved") else "rejected"
    stage = decision.get("stage")
    if stage and not stage["decided"]:
        # A quorum stage: this vote counted, the stage is not decided yet.
        noun = "approval" if decision.get("approved") else "rejection"
        lines = [
            f"Your {noun} is recorded ({when_iso(decision['decidedAt'])}).",
            f"The stage needs {stage['quorum']} approvals and has {stage['approvals']}: "
            f"waiting for {stage['needed']} more.",
        ]
        thanks = "Thank you. You can close this page."
        return message_page(f"Your {noun} is recorded", lines, thanks)
    if decision.get("rejectReason") == UNCLASSIFIABLE:
        lines = [
            f"You said none of the document types fits ({when_iso(decision['decidedAt'])}).",
            "The document is archived as unclassifiable.",
        ]
        return message_page("Document archived", lines, "Thank you. You can close this page.")
    at = when_iso(decision["decidedAt"])
    lines = [f"You {verb} the document at {at}."]
    if decision.get("docType"):
        lines = [
            f"You approved the document as type {decision['docType']} at {at}.",
            "Its own review stages and key fields, where it has any, come next.",
        ]
    if decision.get("rejectReason"):
        lines.append(f"Reason: {reasons.get(decision['rejectReason'], decision['rejectReason'])}.")
    if str(decision.get("comment") or "").strip():  # what the history keeps, said back (escaped)
        lines.append(f"Your comment: “{str(decision['comment']).strip()}”")
    return message_page(f"Document {verb}", lines, "Thank you. You can close this page.")


def refusal_page(status: int, message: str, earlier: LinkRecord | None = None) -> str:
    # Refusal messages are written for the JSON answer too ("this link was already used"): on
    # the page each is a sentence.
    sentence = message[:1].upper() + message[1:]
    lines = [sentence if sentence.endswith((".", "!", "?")) else f"{sentence}."]
    if earlier and earlier.decision and earlier.decision.get("delivery") is None:
        d = earlier.decision
        verb = "approved" if d.get("approved") else "rejected"
        lines.append(
            f"It was {verb} by {d.get('reviewer', '')} at {when_iso(str(d.get('decidedAt', '')))}."
        )
    titles = {409: "This review is closed", 410: "This link has expired"}
    # The heading says what happened in words; the HTTP status is the response's, not the
    # reader's.
    if message.startswith("This link was revoked"):
        return message_page("This link was revoked", lines)
    return message_page(titles.get(status, "This link cannot be used"), lines)
