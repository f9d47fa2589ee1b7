"""Counting the local stack's AWS requests by service and operation, on a real moto server
behind the stack's journaled WSGI entry, with boto3's own requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.backends import get_backend
from moto.server import ThreadedMotoServer

from docflow.local.durability import moto_state
from docflow.local.durability.durable_state import _STATE, DurableMoto
from docflow.local.fidelity import request_counts
from docflow.local.tools.ports import free_port
from tests.support.aws import talk_to_a_moto_server


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    talk_to_a_moto_server(monkeypatch)
    for name in moto_state.SERVICES:
        get_backend(name).reset()
    DurableMoto(tmp_path).recover()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    url = f"http://127.0.0.1:{server._port}"
    yield lambda service: boto3.client(service, endpoint_url=url, region_name="us-east-1")
    server.stop()
    _STATE.journal = None
    for name in moto_state.SERVICES:
        get_backend(name).reset()


def _since(before: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for service, ops in request_counts.snapshot().items():
        for op, n in ops.items():
            if n - before.get(service, {}).get(op, 0):
                found.setdefault(service, {})[op] = n - before.get(service, {}).get(op, 0)
    return found


def test_each_request_is_counted_under_its_service_and_operation(client: Any) -> None:
    before = request_counts.snapshot()
    s3, ddb, sqs, ses = (client(s) for s in ("s3", "dynamodb", "sqs", "ses"))
    s3.create_bucket(Bucket="counted")
    s3.put_object(Bucket="counted", Key="a/b.txt", Body=b"x")
    s3.put_object(Bucket="counted", Key="a/c.txt", Body=b"y")
    s3.get_object(Bucket="counted", Key="a/b.txt")
    s3.head_object(Bucket="counted", Key="a/b.txt")
    s3.list_objects_v2(Bucket="counted", Prefix="a/")
    s3.copy_object(Bucket="counted", Key="a/d.txt", CopySource="counted/a/b.txt")
    ddb.create_table(
        TableName="counted",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    ddb.put_item(TableName="counted", Item={"pk": {"S": "1"}})
    ddb.get_item(TableName="counted", Key={"pk": {"S": "1"}})
    queue = sqs.create_queue(QueueName="counted")["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    ses.verify_email_identity(EmailAddress="a@example.com")
    assert _since(before) == {
        "s3": {
            "CreateBucket": 1,
            "PutObject": 2,
            "GetObject": 1,
            "HeadObject": 1,
            "ListObjectsV2": 1,
            "CopyObject": 1,
        },
        "dynamodb": {"CreateTable": 1, "PutItem": 1, "GetItem": 1},
        "sqs": {"CreateQueue": 1, "SendMessage": 1},
        "ses": {"VerifyEmailIdentity": 1},
    }


def test_a_presigned_url_is_counted_as_its_service() -> None:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/bucket/docs/a.pdf",
        "QUERY_STRING": "X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=test%2F20261202%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=60",
    }
    assert request_counts.operation(environ, b"") == ("s3", "GetObject")
