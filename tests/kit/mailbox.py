"""Review links the way tests and benchmarks wait for them: from moto's SES in this process,
or from the local stack's mailbox (`docflow.local.tools.mailbox` reads it; the CLI prints it)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from docflow.local.tools.mailbox import MailedLink, links_in, stack_mail

__all__ = ["MailedLink", "links_in", "moto_sent_mail", "stack_mail", "wait_for_links"]


def moto_sent_mail() -> list[dict[str, Any]]:
    """What SES accepted, from moto in this process (tests on the in-process sandbox)."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    sent = ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages
    return [
        {"to": m.destinations.get("ToAddresses", []), "subject": m.subject, "body": m.body}
        for m in sent
        if hasattr(m, "subject")
    ]


def wait_for_links(
    state: Path,
    want: int,
    run_id: str | None = None,
    stage_index: int | None = None,
    timeout: float = 60.0,
) -> list[MailedLink]:
    """At least `want` links (of one run and stage, if named) from the stack's mailbox."""
    deadline = time.monotonic() + timeout
    while True:
        links = [
            link
            for link in links_in(stack_mail(state))
            if (run_id is None or link.run_id == run_id)
            and (stage_index is None or link.stage_index == stage_index)
        ]
        if len(links) >= want or time.monotonic() > deadline:
            return links
        time.sleep(0.2)
