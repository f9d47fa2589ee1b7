"""The local SES's mailbox file holds a message as soon as SES accepted it: `docflow mail` right
after a run went to review shows its link (the file was written only every few seconds)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow import aws
from docflow.local.durability import moto_state
from docflow.local.fidelity.ses_mailbox import export_on_send
from docflow.local.resources import LocalNames
from tests.kit.sandbox import moto_sandbox

SENDER = "docflow@example.com"


@pytest.fixture
def mailbox(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "mail.json"
    with moto_sandbox(LocalNames(prefix="mailbox")):
        aws.client("ses").verify_email_identity(EmailAddress=SENDER)
        export_on_send(lambda: moto_state.export_mail(path))
        try:
            yield path
        finally:
            export_on_send(None)


def send(subject: str) -> None:
    aws.client("ses").send_email(
        Source=SENDER,
        Destination={"ToAddresses": ["legal@example.com"]},
        Message={"Subject": {"Data": subject}, "Body": {"Text": {"Data": "a link"}}},
    )


def test_a_message_is_in_the_mailbox_when_send_email_answers(mailbox: Path) -> None:
    send("first")
    assert [m["subject"] for m in json.loads(mailbox.read_text())] == ["first"]
    first_sent = json.loads(mailbox.read_text())[0]["sentAt"]
    send("second")
    mail = json.loads(mailbox.read_text())
    assert [m["subject"] for m in mail] == ["first", "second"]
    assert mail[0]["sentAt"] == first_sent  # a message keeps the date it was first seen


def test_no_export_once_uninstalled(mailbox: Path) -> None:
    export_on_send(None)
    send("unseen")
    assert not mailbox.exists()
