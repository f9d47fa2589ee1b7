"""The reviewers' digest job, run by a Schedule (the template's `ReviewDigestFunction`; the
local stack's schedule loop invokes it the same way). The job is docflow.review.notify.digest: one
mail per digest reviewer and period, whichever run sends it; this only wires it up.
"""

from __future__ import annotations

from typing import Any, TypedDict

from docflow.observability import logger
from docflow.review.access.keys import build_key_source
from docflow.review.notify.digest import DigestJob
from docflow.review.notify.mail import SesMailer
from docflow.rules.model import load_rules
from docflow.settings import load_settings


class DigestPass(TypedDict):
    """A pass's count: the digest reviewers it looked at, and the mails it sent."""

    reviewers: int
    sent: int


def handler(event: Any = None, context: Any = None) -> DigestPass:
    s = load_settings()
    rules = load_rules(s.rules_path or None, s.stage_timeout_s)
    job = DigestJob(
        s.links_table,
        build_key_source(s),
        SesMailer(),
        s.review_sender,
        s.review_base_url,
        s.inbox_link_ttl_s,
    )
    results = job.run(list(rules.digest_reviewers), rules.digest_every_seconds)
    sent = sum(1 for r in results if r["sent"])
    logger.info("digest pass", extra={"reviewers": len(results), "sent": sent})
    return {"reviewers": len(results), "sent": sent}
