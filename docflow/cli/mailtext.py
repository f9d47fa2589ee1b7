"""`docflow mail`: the local SES's messages as a person reads them, text rather than HTML.

moto keeps only a message's HTML part, so the text is made here, with the standard library's
HTML parser: paragraphs and line breaks become lines, a link becomes its text and its address.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docflow.local.tools.mailbox import MailMessage

_BREAKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "table", "ul", "ol"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BREAKS:
            self.parts.append("\n")
        if tag == "li":
            self.parts.append("- ")
        if tag == "a":
            self.href = dict(attrs).get("href")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.href:
            self.parts.append(f" ({self.href})")
            self.href = None
        if tag in _BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_to_text(html: str) -> str:
    """Readable text of a mail's HTML: one line per paragraph or break, no blank runs."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def mail_lines(message: MailMessage) -> list[str]:
    """A message as `docflow mail` prints it: headers with the date, then the text."""
    body = str(message.get("body") or "")
    text = html_to_text(body) if "<" in body else body.strip()
    return [
        f"Date: {message.get('sentAt') or 'unknown'}",
        f"From: {message.get('from', '')}",
        f"To: {', '.join(message.get('to') or [])}",
        f"Subject: {message.get('subject', '')}",
        "",
        text,
    ]
