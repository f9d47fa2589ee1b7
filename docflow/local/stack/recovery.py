"""What the local stack found and brought back when it started after an unclean stop.

The stack marks its state folder while it runs (stackd.running) and clears the mark on a clean
stop, so a start that finds the mark knows the last run was killed. It then writes
recovery.json, which `docflow up` prints:

    {"uncleanStop": true, "at": "...", "journalRecordsReplayed": 812, "journalRecordsRefused": 3,
     "tornRecordDropped": false, "snapshotGeneration": 4, "executionsResumed": 17,
     "callbacksRearmed": 2, "startClaimsReleased": 1, "messagesToRedeliver": 6,
     "messagesQueued": 40}

messagesToRedeliver are intake messages a starter had received but not deleted when the stack
died: SQS delivers them again once their visibility timeout ends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from botocore.exceptions import ClientError

from docflow import aws

if TYPE_CHECKING:
    from docflow.local.config import StackConfig

RUNNING_MARK = "stackd.running"
REPORT = "recovery.json"


class RecoveryReport(TypedDict, total=False):
    """What the last start recovered after an unclean stop (`docflow up --json`'s "recovery";
    {} after a clean stop)."""

    at: str
    uncleanStop: bool
    journalRecordsReplayed: int
    journalRecordsRefused: int
    tornRecordDropped: bool
    snapshotGeneration: int
    executionsResumed: int
    callbacksRearmed: int
    startClaimsReleased: int
    messagesToRedeliver: int
    messagesQueued: int


def begin(state: Path) -> bool:
    """Mark the stack as running; True if the previous run never cleared its mark."""
    mark = state / RUNNING_MARK
    unclean = mark.exists()
    mark.write_text(str(os.getpid()))
    return unclean


def clean_stop(state: Path) -> None:
    (state / RUNNING_MARK).unlink(missing_ok=True)


def intake_backlog(queue_name: str) -> dict[str, int]:
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=queue_name)["QueueUrl"]
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return {
        "messagesToRedeliver": int(attributes["ApproximateNumberOfMessagesNotVisible"]),
        "messagesQueued": int(attributes["ApproximateNumberOfMessages"]),
    }


def release_dead_start_claims(claims_table: str) -> int:
    """Start claims still "starting" when the stack starts belong to starters that died with
    the last run (no starter runs yet). Left as they are, a redelivered message would find a
    fresh claim, take it for a start under way, and be deleted: a document with no run. Marked
    stale, the next delivery takes the claim over, asks the runner whether the run exists, and
    starts it only if not."""

    ddb = aws.client("dynamodb")
    released = 0
    for page in ddb.get_paginator("scan").paginate(
        TableName=claims_table,
        FilterExpression="#s = :starting",
        ExpressionAttributeNames={"#s": "state"},
        ExpressionAttributeValues={":starting": {"S": "starting"}},
    ):
        for item in page.get("Items", []):
            try:
                ddb.update_item(
                    TableName=claims_table,
                    Key={"pk": item["pk"]},
                    UpdateExpression="SET claimedAt = :zero",
                    ConditionExpression="#s = :starting",
                    ExpressionAttributeNames={"#s": "state"},
                    ExpressionAttributeValues={":zero": {"N": "0"}, ":starting": {"S": "starting"}},
                )
                released += 1
            except ClientError as exc:
                if aws.error_code(exc) != "ConditionalCheckFailedException":
                    raise
    return released


def settle(
    config: StackConfig, unclean: bool, moto: Mapping[str, object], rearmed: dict[str, int]
) -> None:
    """Once moto and the runner are back, before the poller starts (no starter alive to own a
    claim or a received message): release dead claims, and write the report."""
    released = release_dead_start_claims(config.claims_table)
    write(
        config.state,
        {
            "uncleanStop": unclean,
            **moto,  # the journal's part (moto_state.recover)
            "executionsResumed": rearmed.get("executions", 0),
            "callbacksRearmed": rearmed.get("callbacks", 0),
            "startClaimsReleased": released,
            **intake_backlog(config.names("IntakeQueue")),
        },
    )


def write(state: Path, report: Mapping[str, object]) -> None:
    report = {"at": datetime.now(UTC).isoformat(timespec="seconds"), **report}
    tmp = state / (REPORT + ".tmp")
    tmp.write_text(json.dumps(report, indent=1))
    os.replace(tmp, state / REPORT)


def read(state: Path) -> RecoveryReport:
    path = state / REPORT
    return json.loads(path.read_text()) if path.exists() else {}


def summary(report: RecoveryReport) -> str:
    """One paragraph for `docflow up`."""
    if not report.get("uncleanStop"):
        return ""
    return (
        "the local stack was not stopped cleanly (killed?); recovered: "
        f"{report.get('journalRecordsReplayed', 0)} journaled AWS requests replayed"
        + (
            " (a torn last record, never acknowledged, dropped)"
            if report.get("tornRecordDropped")
            else ""
        )
        + f", {report.get('executionsResumed', 0)} executions resumed"
        f", {report.get('callbacksRearmed', 0)} review callbacks re-armed"
        f", {report.get('startClaimsReleased', 0)} interrupted starts released"
        f", {report.get('messagesToRedeliver', 0)} intake messages to be re-delivered"
        f" ({report.get('messagesQueued', 0)} more queued)"
    )
