"""The test sandboxes (tests/kit/sandbox.py): the template is provisioned once per process and
set of names, and every later sandbox or `stack` test starts from moto's snapshot of it
(tests/kit/moto_snapshot.py). A restored sandbox must be what provisioning gives, whatever
the test before it wrote or changed, and nothing of that test may be left."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from docflow import aws
from docflow.local.resources import LocalNames, provision
from tests.kit import moto_snapshot, sandbox
from tests.kit.sandbox import moto_sandbox, refill
from tests.support.aws import TEST_ENV, Stack


def described() -> dict[str, Any]:
    """What moto holds, as the AWS APIs show it, without the times of creation: every table,
    bucket, queue, bus, rule, secret and mail identity, with what is stored in each."""
    ddb, s3, sqs, events = (aws.client(s) for s in ("dynamodb", "s3", "sqs", "events"))
    tables = {}
    for name in ddb.list_tables()["TableNames"]:
        table = ddb.describe_table(TableName=name)["Table"]
        tables[name] = {
            "keys": table["KeySchema"],
            "attributes": sorted(table["AttributeDefinitions"], key=str),
            "indexes": sorted(
                (i["IndexName"], str(i["KeySchema"]), str(i["Projection"]))
                for i in table.get("GlobalSecondaryIndexes", [])
            ),
            "ttl": ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"],
            "items": ddb.scan(TableName=name)["Items"],
        }
    buckets = {}
    for bucket in s3.list_buckets()["Buckets"]:
        name = bucket["Name"]
        buckets[name] = {
            "versioning": s3.get_bucket_versioning(Bucket=name).get("Status"),
            "notifications": sorted(
                k
                for k in s3.get_bucket_notification_configuration(Bucket=name)
                if k != "ResponseMetadata"
            ),
            "objects": s3.list_object_versions(Bucket=name).get("Versions", []),
        }
    queues = {}
    for url in sqs.list_queues().get("QueueUrls", []):
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        queues[url] = {
            k: v
            for k, v in attributes.items()
            if k not in ("CreatedTimestamp", "LastModifiedTimestamp")
        }
    rules = {}
    for bus in events.list_event_buses()["EventBuses"]:
        for rule in events.list_rules(EventBusName=bus["Name"])["Rules"]:
            targets = events.list_targets_by_rule(Rule=rule["Name"], EventBusName=bus["Name"])
            rules[(bus["Name"], rule["Name"])] = (rule["EventPattern"], targets["Targets"])
    secrets = aws.client("secretsmanager")
    key_rings = {
        s["Name"]: json.loads(secrets.get_secret_value(SecretId=s["ARN"])["SecretString"])
        for s in secrets.list_secrets()["SecretList"]
    }
    ses = aws.client("ses")
    return {
        "tables": tables,
        "buckets": buckets,
        "queues": queues,
        "rules": rules,
        "secrets": sorted(key_rings),
        "key ring kinds": {n: sorted(ring) for n, ring in key_rings.items()},
        "identities": sorted(ses.list_identities()["Identities"]),
        "mail sent": ses.get_send_quota()["SentLast24Hours"],
        "parameters": aws.client("ssm").describe_parameters()["Parameters"],
    }


def write_everywhere(stack: Stack) -> None:
    """A test's traces in every service the template uses, and in one it does not."""
    names = stack.names
    stack.upload("in/a.pdf", b"%PDF-1.4 one")
    stack.upload("in/a.pdf", b"%PDF-1.4 two")
    ddb = aws.client("dynamodb")
    for table in ddb.list_tables()["TableNames"]:
        keys = ddb.describe_table(TableName=table)["Table"]["AttributeDefinitions"]
        item = {
            k["AttributeName"]: {k["AttributeType"]: "1" if k["AttributeType"] == "N" else "x"}
            for k in keys
        }
        ddb.put_item(TableName=table, Item=item)
    sqs = aws.client("sqs")
    for url in sqs.list_queues()["QueueUrls"]:
        sqs.send_message(QueueUrl=url, MessageBody="left over")
    ses = aws.client("ses")
    ses.send_email(
        Source="docflow@example.com",
        Destination={"ToAddresses": ["someone@example.com"]},
        Message={"Subject": {"Data": "a link"}, "Body": {"Text": {"Data": "a link"}}},
    )
    ses.verify_email_identity(EmailAddress="other@example.com")
    aws.client("s3").create_bucket(Bucket=f"{names.prefix}-extra")
    aws.client("ssm").put_parameter(Name="/left/over", Value="x", Type="String")


def change_what_was_provisioned(stack: Stack) -> None:
    """A test's changes to the template's own resources (which restored objects must not carry
    into the snapshot they came from)."""
    names = stack.names
    aws.client("dynamodb").delete_table(TableName=names("InboxTable"))
    sqs = aws.client("sqs")
    sqs.delete_queue(QueueUrl=sqs.get_queue_url(QueueName=names("DomainEventsQueue"))["QueueUrl"])
    aws.client("s3").put_bucket_versioning(
        Bucket=names("ArtifactBucket"), VersioningConfiguration={"Status": "Suspended"}
    )
    events = aws.client("events")
    targets = events.list_targets_by_rule(Rule=names("BatchJobStateRule"))["Targets"]
    events.remove_targets(Rule=names("BatchJobStateRule"), Ids=[t["Id"] for t in targets])
    aws.client("secretsmanager").put_secret_value(
        SecretId=names("SigningSecret"), SecretString='{"changed": true}'
    )


@pytest.fixture
def fresh() -> Iterator[tuple[Stack, dict[str, Any]]]:
    """A sandbox of names no other test uses, and what provisioning the template on an empty
    moto gives, described. (Each test opens its own sandboxes: one inside the module's `stack`
    sandbox would add to it instead.)"""
    names = LocalNames(prefix=f"s{uuid.uuid4().hex[:8]}")
    with moto_sandbox(names, TEST_ENV):
        moto_snapshot.empty()
        provision(names, with_intake=False)
        afresh = described()
        refill(names, TEST_ENV)
        yield Stack(names), afresh


@pytest.mark.parametrize("what", [write_everywhere, change_what_was_provisioned])
def test_a_refilled_sandbox_is_the_template_as_provisioned_and_nothing_else(
    fresh: tuple[Stack, dict[str, Any]], what: Callable[[Stack], None]
) -> None:
    stack, afresh = fresh
    restored = described()
    assert restored["tables"] and restored["buckets"] and restored["queues"], restored
    assert restored["rules"] and restored["secrets"]
    assert restored == afresh
    secret = aws.client("secretsmanager").get_secret_value(SecretId=stack.names("SigningSecret"))
    what(stack)
    assert described() != afresh  # the test's traces are there ...
    refill(stack.names, TEST_ENV)
    assert described() == afresh  # ... and gone, twice over
    what(stack)
    refill(stack.names, TEST_ENV)
    assert described() == afresh
    # One key ring per process and names, as one deployed stack keeps one.
    again = aws.client("secretsmanager").get_secret_value(SecretId=stack.names("SigningSecret"))
    assert again["SecretString"] == secret["SecretString"]


@pytest.fixture
def provisions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names each sandbox provisioned the template for (rather than restoring it)."""
    made: list[str] = []
    real = sandbox.provision

    def counted(names: LocalNames, **kwargs: Any) -> dict[str, str]:
        made.append(names.prefix)
        return real(names, **kwargs)

    monkeypatch.setattr(sandbox, "provision", counted)
    yield made


def test_the_template_is_provisioned_once_per_process_and_names(provisions: list[str]) -> None:
    names = LocalNames(prefix=f"s{uuid.uuid4().hex[:8]}")  # names no sandbox used before
    with moto_sandbox(names, TEST_ENV):
        first = described()
        refill(names, TEST_ENV)
        refill(names, TEST_ENV)
    with moto_sandbox(names, TEST_ENV):
        assert described() == first
    assert provisions == [names.prefix]
    other = LocalNames(prefix=f"s{uuid.uuid4().hex[:8]}")
    with moto_sandbox(other, TEST_ENV):
        assert sorted(described()["tables"]) == sorted(
            t.replace(names.prefix, other.prefix, 1) for t in first["tables"]
        )
    assert provisions == [names.prefix, other.prefix]


def test_a_sandbox_inside_another_adds_to_it(provisions: list[str]) -> None:
    outer, inner = LocalNames(prefix="outer"), LocalNames(prefix="inner")
    with moto_sandbox(outer, TEST_ENV):
        s3 = aws.client("s3")
        s3.put_object(Bucket=outer("DocumentBucket"), Key="kept", Body=b"x")
        with moto_sandbox(inner, TEST_ENV):
            assert s3.get_object(Bucket=outer("DocumentBucket"), Key="kept")["Body"].read() == b"x"
            tables = aws.client("dynamodb").list_tables()["TableNames"]
            assert outer("ReadModelTable") in tables and inner("ReadModelTable") in tables
    assert provisions[-1] == inner.prefix  # provisioned beside the outer's, not restored over it
