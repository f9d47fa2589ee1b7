"""What every reviewer's page shares: the templates beside this package (Jinja2, escaping on),
the strict headers each answer carries, and how a time is shown."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Referrer-Policy": "no-referrer",  # the token is in the URL: never leak it onward
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}
env = Environment(
    loader=FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=select_autoescape(default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def when(epoch: int) -> str:
    """The pages' one date format (JSON answers keep ISO 8601)."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%d %b %Y, %H:%M UTC")


def when_iso(stamp: str) -> str:
    """An ISO 8601 time (a decision's `decidedAt`, an inbox item's `since`) in the pages'
    format; as given if it is not one."""
    try:
        parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return when(int(parsed.timestamp()))
