"""The digest on the real local stack: its schedule loop runs the job every few seconds, and a
reviewer on `notify = "digest"` gets one mail for the period, not one per document, across a
restart of the stack."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from docflow import aws
from docflow.local.stack import control
from docflow.readmodel.table import from_ddb
from docflow.review.notify.digest import digest_pk
from docflow.rules.model import DEFAULT_RULES
from docflow.settings import load_settings
from tests.kit.mailbox import links_in, stack_mail
from tests.kit.pdfgen import make_pdf
from tests.support.live_stack import (
    LEGAL_ONLY,
    fast_config,
    free_base,
    running_stack,
    upload_doc,
    wait_for,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow(seconds=60)

LEGAL = "legal@example.com"
PERIOD = 24 * 3600


def digests(state: Path) -> list[dict]:
    return [m for m in stack_mail(state) if "wait for your review" in m["subject"]]


def digest_item(period: int) -> dict:
    item = (
        aws.client("dynamodb")
        .get_item(
            TableName=load_settings().links_table, Key={"pk": {"S": digest_pk(LEGAL, period)}}
        )
        .get("Item")
    )
    return from_ddb(item) if item else {}


def test_the_digest_is_sent_once_per_period_across_a_restart(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        f'digest_every_seconds = {PERIOD}\n\n[reviewers."{LEGAL}"]\nnotify = "digest"\n\n'
        + DEFAULT_RULES.read_text()
    )
    saved = os.environ.get("DOCFLOW_RULES_PATH")
    os.environ["DOCFLOW_RULES_PATH"] = str(rules)
    config = fast_config(tmp_path / "state", free_base())
    try:
        with running_stack(config, rules=rules):
            docs = [
                upload_doc(config, f"incoming/agreement-{n}.pdf", make_pdf([f"{LEGAL_ONLY} {n}"]))
                for n in range(2)
            ]
            for doc in docs:
                wait_for(doc.document_id, {"pending-review"}, doc.run_id)
            wait_until(lambda: len(digests(config.state)) == 1, timeout=60)
            period = int(time.time()) // PERIOD
            (mail,) = digests(config.state)
            assert mail["to"] == [LEGAL] and "/inbox/" in mail["body"]
            # No mail per document: the only link legal got is the inbox link.
            assert [m for m in links_in(stack_mail(config.state)) if m.to == LEGAL] == []

            control.down(config.state)
            control.up(config.state)
            control.use_stack(config.state)
            load_settings.cache_clear()
            held = int(digest_item(period).get("heldBack", 0))
            # The restarted stack's schedule runs the job again (twice more), and it holds back.
            wait_until(lambda: int(digest_item(period).get("heldBack", 0)) >= held + 2, timeout=90)
            assert digest_item(period)["state"] == "sent"
            assert len(digests(config.state)) == 1
    finally:
        if saved is None:
            os.environ.pop("DOCFLOW_RULES_PATH", None)
        else:
            os.environ["DOCFLOW_RULES_PATH"] = saved
