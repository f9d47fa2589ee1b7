"""The reviewer's HTML pages: the confirm page, the outcome page and refusals."""

from __future__ import annotations

from html import escape
from typing import Any

_STYLE = """body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f}table{border-collapse:collapse}td{padding:.25rem .75rem .25rem 0}
button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem;cursor:pointer}
.approve{background:#0a7d32;color:#fff;border:0}.reject{background:#b3261e;color:#fff;border:0}
textarea{width:100%;min-height:4rem}.note{color:#555;font-size:.9rem}"""

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    "Referrer-Policy": "no-referrer",  # the token is in the URL: never leak it onward
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<meta name=viewport content='width=device-width'><title>{escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>"
    )


def review_page(link: dict[str, Any], waiting: bool) -> str:
    summary = link.get("summary", {})
    sensitive = summary.get("sensitive") or {}
    found = ", ".join(f"{escape(k)}: {int(v)}" for k, v in sorted(sensitive.items())) or "none"
    others = [r for r in link.get("reviewers", []) if r != link.get("reviewer")]
    rows = [
        ("Document", escape(str(link.get("key", "")))),
        ("Type", escape(str(summary.get("docType", "unknown")))),
        ("Pages", escape(str(summary.get("pages", "?")))),
        ("Sensitive data (counts)", found),
        ("Stage", escape(str(link.get("stageName", "")))),
        ("You", escape(str(link.get("reviewer", "")))),
        ("Also reviewing", escape(", ".join(others)) or "nobody else"),
    ]
    table = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
    if not waiting:
        return _page(
            "Review closed",
            f"<table>{table}</table><p>This document is no longer "
            "waiting for this review (it was decided, or its time ran out).</p>",
        )
    form = (
        "<form method=post><p><label for=comment>Comment (optional)</label><br>"
        "<textarea id=comment name=comment maxlength=1000></textarea></p>"
        "<button class=approve name=decision value=approve>Approve</button>"
        "<button class=reject name=decision value=reject>Reject</button></form>"
        "<p class=note>Opening this page decided nothing. Only a button does, once.</p>"
    )
    return _page("Review a document", f"<table>{table}</table>{form}")


def outcome_page(decision: dict[str, Any]) -> str:
    verb = "approved" if decision.get("approved") else "rejected"
    return _page(
        f"Document {verb}",
        f"<p>Thank you. You {verb} the document at {escape(decision['decidedAt'])}."
        "</p><p>You can close this page.</p>",
    )


def refusal_page(status: int, message: str, earlier: dict[str, Any] | None = None) -> str:
    extra = ""
    if earlier and earlier.get("decision"):
        d = earlier["decision"]
        verb = "approved" if d.get("approved") else "rejected"
        extra = (
            f"<p>It was {verb} by {escape(str(d.get('reviewer', '')))} at "
            f"{escape(str(d.get('decidedAt', '')))}.</p>"
        )
    return _page(f"This link cannot be used ({status})", f"<p>{escape(message)}</p>{extra}")
