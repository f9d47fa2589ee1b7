"""Duplicates: every upload event delivered five times, one object uploaded twice with the same
bytes, then one key uploaded again with new bytes (a corrected bill: its own number and total).

Expect one execution and one finalize record per document, one review e-mail per reviewer,
and the new bytes as a new run that supersedes the old one. (The same bill saved again under its
key is held at `duplicate`, not finalized twice: tests/pipeline's duplicate tests hold that.)
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from _reliability.corpus import contract, invoice, post
from _reliability.harness import Stack, history_counts, review_url, statuses_of

EXTRA_DELIVERIES = 4


def run(smoke: bool) -> dict[str, Any]:
    count = 4 if smoke else 20
    with Stack.running() as stack:
        # Every fourth document goes to a legal reviewer: those test "no e-mail twice".
        files = [
            (f"dup/doc-{n:03d}.pdf", contract(n) if n % 4 == 3 else invoice(n))
            for n in range(count)
        ]
        docs = stack.upload_all(files)
        # Redeliver each event: two copies at once (racing the first), two a little later
        # (after the run has started).
        for doc in docs:
            for _ in range(2):
                stack.redeliver(doc)
        time.sleep(2)
        for doc in docs:
            for _ in range(EXTRA_DELIVERIES - 2):
                stack.redeliver(doc)
        # The same bytes under the same key again: a new S3 version, the same content.
        same = stack.upload(docs[0].key, files[0][1])

        states = stack.wait_settled(docs, timeout_s=120 if smoke else 300)
        pending = [d for d in docs if states[d.run_id].get("status") == "pending-review"]
        # Each reviewer double-clicks: two concurrent approvals of the same link.
        with ThreadPoolExecutor(8) as pool:
            clicks = list(
                pool.map(
                    lambda url: post(url, {"decision": "approve"}),
                    [review_url(stack, d) for d in pending for _ in range(2)],
                )
            )
        states = stack.wait_settled(docs, 120, frozenset({"finalized"}))
        time.sleep(3)  # let the later duplicate deliveries drain through the starter

        finals_before = len(stack.artifacts("/final.json"))
        executions_before = stack.executions()
        received = history_counts(stack, docs, "received")
        finalized = history_counts(stack, docs, "finalized")

        # New bytes under an existing key: a new version, a new run, superseding the old. A
        # corrected bill (another number and total): the same bill again would be a duplicate.
        newer = stack.upload(docs[1].key, invoice(101, pages=2))
        newest = stack.wait_settled([newer], 120, frozenset({"finalized"}))[newer.run_id]
        mail = stack.mail_per_recipient_and_subject()
        executions_after = stack.executions()
        superseded = {
            "new_run_finalized": newest.get("status") == "finalized",
            "state_is_new_version": newest.get("version") == newer.version,
            "old_run_kept_in_history": any(
                h["runId"] == docs[1].run_id for h in stack.history(docs[1])
            ),
        }

    outcome = statuses_of(states, docs)
    report = {
        "documents": count,
        "event_deliveries": count * (1 + EXTRA_DELIVERIES) + 1,
        "same_content_reupload_is_the_same_run": same.run_id == docs[0].run_id,
        "executions": len(executions_before),
        "finalized": outcome.get("finalized", 0),
        "finalize_records": finals_before,
        "runs_with_one_received": received.get(1, 0),
        "runs_with_one_finalized": finalized.get(1, 0),
        "reviews": len(pending),
        "double_clicks_accepted": clicks.count(200),
        "review_emails": sum(mail.values()),
        "review_emails_sent_twice": sum(1 for n in mail.values() if n > 1),
        "executions_after_new_content": len(executions_after),
        "superseded": superseded,
    }
    report["passed"] = (
        report["executions"] == count
        and report["finalized"] == count
        and report["finalize_records"] == count
        and report["runs_with_one_received"] == count
        and report["runs_with_one_finalized"] == count
        and report["same_content_reupload_is_the_same_run"]
        and report["double_clicks_accepted"] == len(pending)
        and report["review_emails"] == len(pending)
        and report["review_emails_sent_twice"] == 0
        and report["executions_after_new_content"] == count + 1
        and all(superseded.values())
    )
    return report
