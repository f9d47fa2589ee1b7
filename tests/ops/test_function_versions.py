"""`docflow versions` in AWS: the published versions and the alias from the Lambda APIs (moto's
Lambda, which keeps versions and aliases; the durable listing is exercised against the local
runner in tests/live/test_versions_stack.py)."""

from __future__ import annotations

import io
import json
import zipfile

from moto import mock_aws

from docflow.function_versions import alias_version, published_versions, version_of


def _zip(n: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", f"def handler(event, context):\n    return {n}\n")
    return buffer.getvalue()


def test_versions_and_the_live_alias_come_from_the_lambda_apis() -> None:
    import boto3

    with mock_aws():
        iam = boto3.client("iam", region_name="us-east-1")
        role = iam.create_role(
            RoleName="fn",
            AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}),
        )["Role"]["Arn"]
        client = boto3.client("lambda", region_name="us-east-1")
        client.create_function(
            FunctionName="orchestrator",
            Runtime="python3.13",
            Role=role,
            Handler="app.handler",
            Code={"ZipFile": _zip(0)},
        )
        for n in range(1, 4):  # three deploys, each with new code: three versions
            client.update_function_code(FunctionName="orchestrator", ZipFile=_zip(n))
            client.publish_version(FunctionName="orchestrator")
        client.create_alias(FunctionName="orchestrator", Name="live", FunctionVersion="2")
        assert published_versions(client, "orchestrator") == ["1", "2", "3"]
        assert alias_version(client, "orchestrator") == "2"


def test_an_execution_names_its_version_by_its_function_arn() -> None:
    arn = "arn:aws:lambda:us-east-1:123456789012:function:docflow-orchestrator"
    assert version_of({"FunctionArn": f"{arn}:7"}) == "7"
    assert version_of({"FunctionArn": arn, "Version": "4"}) == "4"
    assert version_of({"FunctionArn": arn}) == "$LATEST"
