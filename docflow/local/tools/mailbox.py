"""Review links as the reviewers receive them: read back from the mail the local SES accepted.

Links live only in reviewers' mailboxes; the read model names them by link id. Locally the
mailbox is moto's SES: `docflow run` and `docflow mail` print links from it for convenience
(tests and benchmarks wait for them and click them through tests/kit/mailbox.py). Tools only:
nothing here verifies a token.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, cast

from docflow.review.access.signing import WireClaims

_LINK = re.compile(
    r"https?://[^\s\"'<>]+/review/(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)"
)


# A message the local SES accepted, as `moto_state.export_mail` writes mail.json ("from" is a
# keyword, hence the call form).
MailMessage = TypedDict(
    "MailMessage",
    {"id": str, "from": str, "to": list[str], "subject": str, "body": str, "sentAt": str},
    total=False,
)


@dataclass(frozen=True)
class MailedLink:
    to: str
    url: str
    token: str
    document_id: str
    run_id: str
    stage_index: int
    reviewer: str


def _claims(token: str) -> WireClaims:
    body = token.split(".")[2]
    return cast("WireClaims", json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


def links_in(mail: list[MailMessage]) -> list[MailedLink]:
    """Every review link in the messages, in the order sent, each once."""
    found: dict[str, MailedLink] = {}
    for message in mail:
        to = message.get("to") or []
        for match in _LINK.finditer(str(message.get("body", ""))):
            token = match.group(1)
            if token in found:
                continue
            claims = _claims(token)
            found[token] = MailedLink(
                to=to[0] if to else "",
                url=match.group(0),
                token=token,
                document_id=str(claims["d"]),
                run_id=str(claims["r"]),
                stage_index=int(claims["i"]),
                reviewer=str(claims["u"]),
            )
    return list(found.values())


def stack_mail(state: Path) -> list[MailMessage]:
    """What the local stack's SES accepted, as `docflow mail --json` prints it."""
    path = Path(state) / "mail.json"
    return cast("list[MailMessage]", json.loads(path.read_text())) if path.exists() else []
