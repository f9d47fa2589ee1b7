"""Create the template's stateful resources on a local endpoint (moto), from template.yaml.

The template is the one description of the bucket, queues, rule, tables and secret; the local
stack and the tests read it here instead of declaring them a second time by hand. Only the
properties that change behaviour locally are applied (keys, indexes, versioning, EventBridge
notifications, redrive, the rule's pattern and target).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import yaml
from botocore.exceptions import ClientError

from docflow import aws
from docflow.review.access.signing import KeyRing

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.literals import BillingModeType
    from mypy_boto3_dynamodb.type_defs import (
        AttributeDefinitionTypeDef,
        CreateTableInputTypeDef,
        GlobalSecondaryIndexTypeDef,
        KeySchemaElementTypeDef,
        TimeToLiveSpecificationTypeDef,
    )

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


# libyaml's parser where PyYAML was built with it (the wheels are): ten times the pure one.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Resource(TypedDict, total=False):
    """One resource of template.yaml, with CloudFormation's short-form tags as mappings."""

    Type: str
    Properties: dict[str, Any]  # the resource type's own properties, as written
    Condition: str
    DependsOn: str | list[str]


Resources = dict[str, Resource]  # by logical id


class Template(TypedDict, total=False):
    Resources: Resources
    Parameters: dict[str, dict[str, object]]
    Conditions: dict[str, object]
    Outputs: dict[str, dict[str, object]]
    Globals: dict[str, dict[str, object]]


class TableProperties(TypedDict, total=False):
    """An AWS::DynamoDB::Table's properties the local stack creates it from."""

    AttributeDefinitions: list[AttributeDefinitionTypeDef]
    KeySchema: list[KeySchemaElementTypeDef]
    BillingMode: BillingModeType
    GlobalSecondaryIndexes: list[GlobalSecondaryIndexTypeDef]
    TimeToLiveSpecification: TimeToLiveSpecificationTypeDef


class _CfnLoader(_SafeLoader):
    """Reads CloudFormation's short-form tags (!Ref, !GetAtt, !Sub, ...) as plain mappings."""


def _tag(loader: _CfnLoader, suffix: str, node: yaml.Node) -> dict[str, object]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = str(value).split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {name: value}


_CfnLoader.add_multi_constructor("!", _tag)


def load_template(path: Path = TEMPLATE) -> Template:
    """The template as a mapping, a fresh copy each call (callers may change theirs). Parsed
    once per version of the file: every test's sandbox provisions from it, and parsing
    cost a test suite minutes of CPU."""
    stat = path.stat()
    return copy.deepcopy(_parsed(path, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=4)
def _parsed(path: Path, _mtime_ns: int, _size: int) -> Template:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_CfnLoader)  # noqa: S506


@dataclass(frozen=True)
class LocalNames:
    """Physical names for the template's logical resources on the local stack."""

    prefix: str = "docflow"
    overrides: dict[str, str] = field(default_factory=dict)

    def __call__(self, logical: str) -> str:
        defaults = {
            "DocumentBucket": f"{self.prefix}-documents",
            "ArtifactBucket": f"{self.prefix}-artifacts",
            "ReadModelTable": f"{self.prefix}-status",
            "ReviewLinksTable": f"{self.prefix}-review-links",
            "InboxTable": f"{self.prefix}-inbox",
            "ReaderLeaseTable": f"{self.prefix}-reader-leases",
            "PileTable": f"{self.prefix}-pile",
            "SupplierTable": f"{self.prefix}-suppliers",
            "DuplicateTable": f"{self.prefix}-duplicates",
            "OrderTable": f"{self.prefix}-orders",
            "SigningSecret": f"{self.prefix}-signing-keys",
            "IntakeQueue": f"{self.prefix}-intake",
            "IntakeDeadLetterQueue": f"{self.prefix}-intake-dlq",
            "DocumentCreatedRule": f"{self.prefix}-document-created",
            "DomainEventBus": f"{self.prefix}-events",
            "DomainEventsQueue": f"{self.prefix}-domain-events",
            "DomainEventsRule": f"{self.prefix}-domain-events-all",
            "BatchJobStateRule": f"{self.prefix}-batch-job-state",
            # Local only: the rule's Lambda target, played by a queue the stack drains.
            "BatchJobEventsQueue": f"{self.prefix}-batch-job-events",
        }
        return self.overrides.get(logical, defaults.get(logical, f"{self.prefix}-{logical}"))

    def settings_env(self) -> dict[str, str]:
        """The DOCFLOW_* variables that point the code at these resources."""
        return {
            "DOCFLOW_ARTIFACT_BUCKET": self("ArtifactBucket"),
            "DOCFLOW_TABLE_NAME": self("ReadModelTable"),
            "DOCFLOW_LINKS_TABLE": self("ReviewLinksTable"),
            "DOCFLOW_INBOX_TABLE": self("InboxTable"),
            "DOCFLOW_READER_LEASE_TABLE": self("ReaderLeaseTable"),
            "DOCFLOW_PILE_TABLE": self("PileTable"),
            "DOCFLOW_SUPPLIER_TABLE": self("SupplierTable"),
            "DOCFLOW_DUPLICATE_TABLE": self("DuplicateTable"),
            "DOCFLOW_ORDER_TABLE": self("OrderTable"),
            "DOCFLOW_SIGNING_SECRET_ID": self("SigningSecret"),
            "DOCFLOW_SIGNING_KEY_SOURCE": "secretsmanager",
            "DOCFLOW_EVENT_BUS_NAME": self("DomainEventBus"),
        }


def provision(
    names: LocalNames, sender: str = "docflow@example.com", with_intake: bool = True
) -> dict[str, str]:
    """Create every resource the local stack needs; safe to call again on a running stack."""
    resources = load_template()["Resources"]
    created: dict[str, str] = {}
    for logical, spec in resources.items():
        if "Condition" in spec:  # off by default (access logs): the local stack is the default
            continue
        kind, props = spec["Type"], spec.get("Properties", {})
        if kind == "AWS::DynamoDB::Table":
            created[logical] = _table(names(logical), cast("TableProperties", props))
        elif kind == "AWS::S3::Bucket":
            created[logical] = _bucket(names(logical), props)
        elif kind == "AWS::SecretsManager::Secret":
            created[logical] = _secret(names(logical))
    if with_intake:
        created.update(_intake(names, resources))
    created.update(_domain_events(names, resources))
    created.update(_batch_job_events(names, resources))
    aws.client("ses").verify_email_identity(EmailAddress=sender)
    return created


def _table(name: str, props: TableProperties) -> str:
    args: CreateTableInputTypeDef = {
        "TableName": name,
        "AttributeDefinitions": props["AttributeDefinitions"],
        "KeySchema": props["KeySchema"],
        "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST"),
    }
    if props.get("GlobalSecondaryIndexes"):
        args["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    ddb = aws.client("dynamodb")
    try:
        ddb.create_table(**args)
    except ClientError as exc:
        if aws.error_code(exc) != "ResourceInUseException":
            raise
        _add_missing_indexes(ddb, name, props)
    ttl = props.get("TimeToLiveSpecification")
    if ttl:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
    return name


def _add_missing_indexes(ddb: Any, name: str, props: TableProperties) -> None:
    """A stack kept from before the template gained an index gets it, as a deploy would."""
    have = {
        i["IndexName"]
        for i in ddb.describe_table(TableName=name)["Table"].get("GlobalSecondaryIndexes", [])
    }
    for index in props.get("GlobalSecondaryIndexes", []):
        if index["IndexName"] not in have:
            ddb.update_table(
                TableName=name,
                AttributeDefinitions=props["AttributeDefinitions"],
                GlobalSecondaryIndexUpdates=[{"Create": index}],
            )


def _bucket(name: str, props: Mapping[str, Any]) -> str:
    s3 = aws.client("s3")
    try:
        s3.create_bucket(Bucket=name)
    except ClientError as exc:
        if aws.error_code(exc) not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
            raise
    if props.get("VersioningConfiguration"):
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    if props.get("NotificationConfiguration", {}).get("EventBridgeConfiguration"):
        s3.put_bucket_notification_configuration(
            Bucket=name, NotificationConfiguration={"EventBridgeConfiguration": {}}
        )
    return name


def _secret(name: str) -> str:
    sm = aws.client("secretsmanager")
    try:
        sm.create_secret(Name=name, SecretString=KeyRing.generate_json("k1"))
    except ClientError as exc:
        if aws.error_code(exc) != "ResourceExistsException":
            raise
    return name


def _queue(name: str, attributes: dict[str, str]) -> str:
    sqs = aws.client("sqs")
    try:
        return str(sqs.get_queue_url(QueueName=name)["QueueUrl"])  # kept from a previous run
    except ClientError as exc:
        if "NonExistentQueue" not in aws.error_code(exc):
            raise
    return str(sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"])


def _intake(names: LocalNames, resources: Resources) -> dict[str, str]:
    sqs = aws.client("sqs")
    dlq_props = resources["IntakeDeadLetterQueue"]["Properties"]
    dlq_url = _queue(
        names("IntakeDeadLetterQueue"),
        {"MessageRetentionPeriod": str(dlq_props["MessageRetentionPeriod"])},
    )
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    q_props = resources["IntakeQueue"]["Properties"]
    redrive = {
        "deadLetterTargetArn": dlq_arn,
        "maxReceiveCount": str(q_props["RedrivePolicy"]["maxReceiveCount"]),
    }
    queue_url = _queue(
        names("IntakeQueue"),
        {
            "VisibilityTimeout": str(q_props["VisibilityTimeout"]),
            "MessageRetentionPeriod": str(q_props["MessageRetentionPeriod"]),
            "RedrivePolicy": json.dumps(redrive),
        },
    )
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    rule = resources["DocumentCreatedRule"]["Properties"]
    pattern = json.loads(json.dumps(rule["EventPattern"]))
    pattern["detail"]["bucket"]["name"] = [names("DocumentBucket")]
    events = aws.client("events")
    events.put_rule(
        Name=names("DocumentCreatedRule"), EventPattern=json.dumps(pattern), State="ENABLED"
    )
    events.put_targets(
        Rule=names("DocumentCreatedRule"),
        Targets=[{"Id": rule["Targets"][0]["Id"], "Arn": queue_arn}],
    )
    return {"IntakeQueue": queue_url, "IntakeDeadLetterQueue": dlq_url}


def _domain_events(names: LocalNames, resources: Resources) -> dict[str, str]:
    """The transition events' bus and the template's example rule into a queue."""
    events = aws.client("events")
    bus = names("DomainEventBus")
    try:
        events.create_event_bus(Name=bus)
    except ClientError as exc:
        if aws.error_code(exc) != "ResourceAlreadyExistsException":
            raise
    q_props = resources["DomainEventsQueue"]["Properties"]
    queue_url = _queue(
        names("DomainEventsQueue"),
        {"MessageRetentionPeriod": str(q_props["MessageRetentionPeriod"])},
    )
    queue_arn = aws.client("sqs").get_queue_attributes(
        QueueUrl=queue_url, AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    rule = resources["DomainEventsRule"]["Properties"]
    events.put_rule(
        Name=names("DomainEventsRule"),
        EventBusName=bus,
        EventPattern=json.dumps(rule["EventPattern"]),
        State="ENABLED",
    )
    events.put_targets(
        Rule=names("DomainEventsRule"),
        EventBusName=bus,
        Targets=[{"Id": rule["Targets"][0]["Id"], "Arn": queue_arn}],
    )
    return {"DomainEventBus": bus, "DomainEventsQueue": queue_url}


def _batch_job_events(names: LocalNames, resources: Resources) -> dict[str, str]:
    """Bedrock's job state changes (the default bus) by the template's rule into a queue: the
    rule's Lambda target, which the local stack (or a test) delivers to the function."""
    events = aws.client("events")
    queue_url = _queue(names("BatchJobEventsQueue"), {"MessageRetentionPeriod": "86400"})
    queue_arn = aws.client("sqs").get_queue_attributes(
        QueueUrl=queue_url, AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    rule = resources["BatchJobStateRule"]["Properties"]
    events.put_rule(
        Name=names("BatchJobStateRule"),
        EventPattern=json.dumps(rule["EventPattern"]),
        State="ENABLED",
    )
    events.put_targets(
        Rule=names("BatchJobStateRule"),
        Targets=[{"Id": rule["Targets"][0]["Id"], "Arn": queue_arn}],
    )
    return {"BatchJobEventsQueue": queue_url}
