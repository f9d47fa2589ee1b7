"""The digest: a reviewer on `notify = "digest"` gets no mail per document, and one mail per
period listing what waits, with a working inbox link, however often the job runs."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

import callback_api.app as api
import callback_api.digest as digest_function
from docflow.review.access.keys import build_key_source
from docflow.review.notify.digest import DigestJob
from docflow.review.notify.mail import SesMailer
from docflow.review.stage.inbox import InboxIndex
from docflow.rules.model import load_rules
from docflow.runtime import build_runtime, use_runtime
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.kit.mailbox import links_in, moto_sent_mail
from tests.support.aws import RULES_FAST, Stack
from tests.support.review_desk import RunnerCallbacks, call, make_views, wait_until

LEGAL, COUNSEL = "legal@example.com", "counsel@example.com"
CONTRACT = """SERVICES AGREEMENT
This agreement is made between the parties named below.
The parties hereby agree to the terms and conditions.
Governing law: Delaware."""


@pytest.fixture
def digest_rules(tmp_path: Path) -> Iterator[Path]:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        'digest_every_seconds = 3600\n\n[reviewers."counsel@example.com"]\nnotify = "digest"\n\n'
        + RULES_FAST.read_text()
    )
    before = os.environ.get("DOCFLOW_RULES_PATH")
    os.environ["DOCFLOW_RULES_PATH"] = str(rules)
    load_settings.cache_clear()
    yield rules
    # As it was: a value left behind would reach a later test's local stack.
    if before is None:
        os.environ.pop("DOCFLOW_RULES_PATH", None)
    else:
        os.environ["DOCFLOW_RULES_PATH"] = before
    load_settings.cache_clear()


@contextlib.contextmanager
def running(stack: Stack) -> Iterator[DurableFunctionTestRunner]:
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        callbacks = RunnerCallbacks(runner)
        api.use_views(make_views(callbacks))
        use_runtime(build_runtime().with_(callbacks=callbacks))
        try:
            yield runner
        finally:
            api.use_views(None)
            use_runtime(None)


def digests() -> list[dict]:
    return [m for m in moto_sent_mail() if "wait for your review" in m["subject"]]


def job() -> DigestJob:
    s = load_settings()
    return DigestJob(
        s.links_table, build_key_source(s), SesMailer(), s.review_sender, "http://x", 3600
    )


def test_the_rules_name_who_takes_a_digest(digest_rules: Path) -> None:
    rules = load_rules(digest_rules)
    assert rules.digest_reviewers == (COUNSEL,) and rules.digest_every_seconds == 3600
    assert rules.stages["legal"].to_dict()["digest"] == [COUNSEL]
    assert "notify" not in rules.stages["legal"].to_dict()  # "each" checkpoints as before
    bad = digest_rules.with_name("bad.toml")
    bad.write_text(digest_rules.read_text().replace('notify = "digest"', 'notify = "weekly"'))
    with pytest.raises(ValueError, match="notify"):
        load_rules(bad)


def test_a_digest_reviewer_gets_one_mail_per_period_and_none_per_document(
    stack: Stack, digest_rules: Path
) -> None:
    with running(stack) as runner:
        docs = []
        for name in ("first", "second"):
            doc = stack.upload(f"in/{name}.pdf", pdfs.text_pdf(CONTRACT))
            runner.run_async(input=stack.event(doc), execution_timeout=120)
            docs.append(doc)
        for doc in docs:
            wait_until(lambda d=doc: any(m.run_id == d.run_id for m in links_in(moto_sent_mail())))
        index = InboxIndex(load_settings().links_table)
        wait_until(lambda: len(index.page(COUNSEL).items) == 2)
        mailed = {m.to for m in links_in(moto_sent_mail())}
        assert mailed == {LEGAL}  # counsel takes a digest: no mail per document

        now = time.time()
        period_start = now // 3600 * 3600
        first = job().run([COUNSEL, LEGAL], 3600, now=now)
        again = job().run([COUNSEL, LEGAL], 3600, now=period_start + 3599)
        assert [r["sent"] for r in first] == [True, False]  # legal has no digest items
        assert [r["sent"] for r in again] == [False, False]
        assert again[0]["why"] == "already sent this period"
        (mail,) = digests()
        assert mail["to"] == [COUNSEL], mail
        assert mail["subject"].startswith("[docflow] 2 documents"), mail
        assert "first.pdf" in mail["body"] and "second.pdf" in mail["body"]
        # The mail's inbox link works and lists counsel's items.
        (path,) = re.findall(r"http://x(/inbox/[A-Za-z0-9._-]+)", mail["body"])
        page = call("GET", path)
        assert page["statusCode"] == 200 and "first.pdf" in page["body"]

        # The scheduled function runs the same job: nothing more in this period.
        assert digest_function.handler({}, None) == {"reviewers": 1, "sent": 0}
        # The next period: one more.
        job().run([COUNSEL], 3600, now=period_start + 3600 + 5)
        assert len(digests()) == 2
