"""A review policy on the live local stack: `DOCFLOW_RULES_PATH=FILE docflow up` with a 2-of-3
stage that reminds, stopped and started again between the reminder and the deciding vote (the
policies on the durable testing runner: tests/review/test_review_policies.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from tests.support.live_stack import http, wait_for
from tests.support.review_desk import wait_until

LEGAL_ONLY = "SERVICES AGREEMENT\nThe parties hereby agree. Governing law: Delaware."
TYPES = """
[[document_types]]
name = "contract"
keywords = ["agreement", "hereby", "parties", "governing law"]
min_hits = 2
stages = ["legal"]
"""
A, B, C = "a@example.com", "b@example.com", "c@example.com"
QUORUM = f'reviewers = ["{A}", "{B}", "{C}"]\nquorum = 2'


def rules(stage: str) -> str:
    return f"{TYPES}\n[stages.legal]\ntimeout_seconds = 30\n{stage}\n"


@pytest.mark.slow
def test_local_stack_restart_between_the_reminder_and_the_decision(tmp_path: Path) -> None:
    """`DOCFLOW_RULES_PATH=FILE docflow up`, a 2-of-3 stage that reminds; the first approval,
    a reminder, the stack stopped and started again, then the second approval, with the link
    of the first e-mail, decides."""
    from docflow.local.config import StackConfig
    from docflow.local.stack import control
    from docflow.local.tools.ports import free_port_base
    from docflow.local.tools.uploads import put_document
    from tests.kit.mailbox import stack_mail, wait_for_links
    from tests.kit.pdfgen import make_pdf
    from tests.kit.sandbox import reset_process_state

    saved = dict(os.environ)
    path = tmp_path / "rules.toml"
    path.write_text(
        rules(f"{QUORUM}\nremind_after_seconds = 3\nmax_reminders = 2").replace(
            "timeout_seconds = 30", "timeout_seconds = 120"
        )
    )
    state = tmp_path / "stack"
    StackConfig(state=state, port_base=free_port_base(25000)).save()
    try:
        os.environ["DOCFLOW_RULES_PATH"] = str(path)
        config = control.up(state)
        control.use_stack(state)
        del os.environ["DOCFLOW_RULES_PATH"]  # the stack keeps the rules it was started with
        doc = put_document(
            config.names("DocumentBucket"), "incoming/agreement.pdf", make_pdf([LEGAL_ONLY])
        )
        wait_for(doc.document_id, {"pending-review"}, doc.run_id)
        links = {m.reviewer: m.url for m in wait_for_links(state, 3, run_id=doc.run_id)}
        assert sorted(links) == [A, B, C]
        status, page = http("POST", links[A], {"decision": "approve"})
        assert status == 200 and "waiting for 1 more" in page

        def reminded() -> bool:
            return any(B in m["to"] and "Reminder 1" in m["subject"] for m in stack_mail(state))

        wait_until(reminded, timeout=60)
        assert control.down(state)
        control.up(state)
        control.use_stack(state)
        assert StackConfig.load(state).extra_env["DOCFLOW_RULES_PATH"] == str(path.resolve())

        assert http("POST", links[B], {"decision": "approve"})[0] == 200
        wait_for(doc.document_id, {"finalized"}, doc.run_id, timeout=60)
        status, page = http("POST", links[C], {"decision": "approve"})
        assert status == 409 and f"already approved by {A} and {B}" in page
        history = ReadModel(load_settings().table_name).show(doc.document_id)["history"]
        approved = [h for h in history if h["status"] == "approved"]
        assert len(approved) == 1
        assert [v["reviewer"] for v in approved[0]["payload"]["votes"]] == [A, B]
        to_b = [m for m in stack_mail(state) if B in m["to"]]
        assert len({m["subject"] for m in to_b}) == len(to_b)  # no e-mail twice
        assert all(links[B] in m["body"] for m in to_b)
    finally:
        control.down(state)
        os.environ.clear()
        os.environ.update(saved)
        reset_process_state()
