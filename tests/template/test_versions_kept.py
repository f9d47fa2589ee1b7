"""In AWS, a deploy must never delete a version an execution still runs on: every durable
function publishes versions behind `live` and keeps the old ones when the stack updates."""

from __future__ import annotations

from docflow.local.resources import load_template


def test_every_durable_function_publishes_versions_and_keeps_them() -> None:
    resources = load_template()["Resources"]
    durable = {
        name: r["Properties"]
        for name, r in resources.items()
        if r["Type"] == "AWS::Serverless::Function" and "DurableConfig" in r["Properties"]
    }
    assert set(durable) >= {"OrchestratorFunction", "BatcherFunction"}
    for name, props in durable.items():
        assert props.get("AutoPublishAlias") == "live", name
        assert props.get("VersionDeletionPolicy") == "Retain", name
    # Nothing else in the template deletes or prunes versions.
    kinds = {r["Type"] for r in resources.values()}
    assert "AWS::Lambda::Version" not in kinds
