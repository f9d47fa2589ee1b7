"""Review e-mail: composing it and sending it through SES."""

from __future__ import annotations

from html import escape
from typing import Protocol

from docflow import aws
from docflow.review.stage.requests import ReviewRequest


class Mailer(Protocol):
    def send(self, sender: str, to: str, subject: str, text: str, html: str) -> str:
        """Send one message; returns the provider's message id."""
        ...


class SesMailer:
    def send(self, sender: str, to: str, subject: str, text: str, html: str) -> str:
        answer = aws.client("ses").send_email(
            Source=sender,
            Destination={"ToAddresses": [to]},
            Message={
                "Subject": {"Data": subject, "Charset": "UTF-8"},
                "Body": {
                    "Text": {"Data": text, "Charset": "UTF-8"},
                    "Html": {"Data": html, "Charset": "UTF-8"},
                },
            },
        )
        return str(answer["MessageId"])


def document(request: ReviewRequest) -> str:
    """The document as the mail's body names it: its name and, for a part, where it is."""
    name, key = request.doc.display_name, request.doc.key
    return key if name == key.rsplit("/", 1)[-1] else f"{name} ({key})"


def review_email(request: ReviewRequest, url: str) -> tuple[str, str, str]:
    summary = request.shown.summary
    name = request.doc.display_name
    found = ", ".join(f"{k}: {v}" for k, v in sorted((summary.sensitive or {}).items()))
    doc_type = summary.doc_type or "unknown"
    pages = "?" if summary.pages is None else str(summary.pages)
    subject = f"[docflow] Review needed ({request.stage_name}): {name}"[:200]
    lines = [
        f"A document is waiting for your review at stage '{request.stage_name}'.",
        "",
        f"Document: {document(request)}",
        f"Type: {doc_type}, pages: {pages}",
        f"Sensitive data found (counts): {found or 'none'}",
        "",
        f"Open the review page to approve or reject: {url}",
        "Opening the page decides nothing; only the buttons on it do.",
    ]
    html = (
        f"<p>A document is waiting for your review at stage "
        f"<b>{escape(request.stage_name)}</b>.</p>"
        f"<p>Document: {escape(document(request))}<br>"
        f"Type: {escape(doc_type)}, pages: {escape(pages)}<br>"
        f"Sensitive data found (counts): {escape(found or 'none')}</p>"
        f'<p><a href="{escape(url)}">Open the review page</a> to approve or reject.</p>'
    )
    return subject, "\n".join(lines), html


def reminder_email(request: ReviewRequest, url: str) -> tuple[str, str, str]:
    """The same working link again: the reviewer has not decided yet."""
    name = request.doc.display_name
    total = request.stage.stage.max_reminders
    count = f" {request.reminder} of {total}" if total else ""
    subject = f"[docflow] Reminder{count}: review needed ({request.stage_name}): {name}"[:200]
    lines = [
        f"A document is still waiting for your review at stage '{request.stage_name}'.",
        "",
        f"Document: {document(request)}",
        "",
        f"Your link is the same as before and still works: {url}",
        "Opening the page decides nothing; only the buttons on it do.",
    ]
    html = (
        f"<p>A document is still waiting for your review at stage "
        f"<b>{escape(request.stage_name)}</b>.</p>"
        f"<p>Document: {escape(document(request))}</p>"
        f'<p><a href="{escape(url)}">Open the review page</a> (the same link as before).</p>'
    )
    return subject, "\n".join(lines), html


def escalation_email(
    request: ReviewRequest, url: str, escalated_to: list[str]
) -> tuple[str, str, str]:
    """To an original reviewer: the stage now also asks others; their own link still works."""
    name = request.doc.display_name
    who = ", ".join(escalated_to)
    subject = f"[docflow] Review escalated ({request.stage_name}): {name}"[:200]
    lines = [
        f"Nobody has decided stage '{request.stage_name}' yet, so it was escalated to: {who}.",
        "Their decisions count like yours.",
        "",
        f"Document: {document(request)}",
        "",
        f"Your link still works: {url}",
    ]
    html = (
        f"<p>Nobody has decided stage <b>{escape(request.stage_name)}</b> yet, so it was "
        f"escalated to {escape(who)}. Their decisions count like yours.</p>"
        f"<p>Document: {escape(document(request))}</p>"
        f'<p><a href="{escape(url)}">Your link still works</a>.</p>'
    )
    return subject, "\n".join(lines), html
