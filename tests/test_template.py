"""The SAM template, parsed: durable settings, least privilege, intake wiring, local parity."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from docflow.classify.rules import load_rules
from docflow.local.resources import load_template
from docflow.settings import Settings

TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
GLOBALS = TEMPLATE["Globals"]["Function"]
DURABLE_RUNTIMES = {"python3.13", "python3.14"}


def functions() -> dict[str, dict[str, Any]]:
    return {
        k: v["Properties"] for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Function"
    }


def statements(
    props: dict[str, Any], conditions: frozenset[str] | None = None
) -> list[dict[str, Any]]:
    """Policy statements; `Fn::If` ones resolved for the given true conditions (None: all)."""
    found = []
    for policy in props.get("Policies", []):
        if isinstance(policy, dict) and "Statement" in policy:
            for raw in policy["Statement"]:
                statement = raw
                if "Fn::If" in raw:
                    name, then, otherwise = raw["Fn::If"]
                    chosen = conditions is None or name in conditions
                    statement = then if chosen else otherwise
                    if statement == {"Ref": "AWS::NoValue"}:
                        continue
                found.append(statement)
    return found


def actions(statement: dict[str, Any]) -> list[str]:
    value = statement["Action"]
    return value if isinstance(value, list) else [value]


def resources_of(statement: dict[str, Any]) -> list[Any]:
    value = statement["Resource"]
    return value if isinstance(value, list) else [value]


def test_durable_functions_run_on_a_durable_runtime() -> None:
    for name, props in functions().items():
        runtime = props.get("Runtime", GLOBALS["Runtime"])
        if "DurableConfig" in props:
            assert runtime in DURABLE_RUNTIMES, name
            assert props.get("AutoPublishAlias") == "live", name
            assert props["Timeout"] == 900


def test_execution_timeout_outlasts_the_longest_review_path() -> None:
    params = TEMPLATE["Parameters"]
    default_timeout = int(params["ExecutionTimeoutSeconds"]["Default"])
    rules = load_rules(stage_timeout_s=int(params["StageTimeoutSeconds"]["Default"]))
    assert default_timeout > rules.longest_review_seconds() + 3600
    orchestrator = functions()["OrchestratorFunction"]
    assert orchestrator["DurableConfig"]["ExecutionTimeout"] == {"Ref": "ExecutionTimeoutSeconds"}
    # The functions refuse to start with a combination that would cut reviews short.
    from docflow.classify.rules import check_against_settings
    from docflow.settings import SettingsError

    with pytest.raises(SettingsError, match="longest review path"):
        check_against_settings(rules, Settings(execution_timeout_s=3600))


def test_callback_permissions_name_only_the_orchestrators_versions() -> None:
    callback = functions()["CallbackApiFunction"]
    sends = [
        s
        for s in statements(callback)
        if any(a.startswith("lambda:SendDurableExecutionCallback") for a in actions(s))
    ]
    assert len(sends) == 1
    (resource,) = resources_of(sends[0])
    arn = resource["Fn::Sub"]
    assert arn.endswith(":function:${AWS::StackName}-orchestrator:*")
    assert functions()["OrchestratorFunction"]["FunctionName"] == {
        "Fn::Sub": "${AWS::StackName}-orchestrator"
    }
    for name, props in functions().items():
        if name != "CallbackApiFunction":
            assert not any(
                "SendDurableExecutionCallback" in a for s in statements(props) for a in actions(s)
            ), name


def test_only_the_recorder_lists_executions_and_only_the_orchestrators() -> None:
    recorder = functions()["StatusRecorderFunction"]
    lists = [
        s for s in statements(recorder) if "lambda:ListDurableExecutionsByFunction" in actions(s)
    ]
    assert len(lists) == 1 and actions(lists[0]) == ["lambda:ListDurableExecutionsByFunction"]
    arns = [r["Fn::Sub"] for r in resources_of(lists[0])]
    assert [a.split(":function:")[1] for a in arns] == [
        "${AWS::StackName}-orchestrator",
        "${AWS::StackName}-orchestrator:*",
    ]
    name = recorder["Environment"]["Variables"]["DOCFLOW_ORCHESTRATOR_NAME"]
    assert name == {"Fn::Sub": "${AWS::StackName}-orchestrator"}
    schedules = [e["Properties"] for e in recorder["Events"].values() if e["Type"] == "Schedule"]
    assert '{"task": "reconcile"}' in [s["Input"] for s in schedules]
    for other, props in functions().items():
        if other != "StatusRecorderFunction":
            assert not any(
                "ListDurableExecutions" in a for s in statements(props) for a in actions(s)
            )


def test_no_policy_grants_scan_or_wildcard_actions() -> None:
    for name, props in functions().items():
        for statement in statements(props):
            assert "dynamodb:Scan" not in actions(statement), name
            assert not any(a.endswith(":*") or a == "*" for a in actions(statement)), name


def test_star_resources_only_where_the_service_has_no_resource_arns() -> None:
    for name, props in functions().items():
        for statement in statements(props):
            if "*" in resources_of(statement):
                allowed = {
                    "textract:DetectDocumentText",
                    "textract:AnalyzeExpense",
                    "cloudwatch:PutMetricData",
                }
                assert set(actions(statement)) <= allowed, (name, statement)
                if "cloudwatch:PutMetricData" in actions(statement):
                    assert statement["Condition"]["StringEquals"]["cloudwatch:namespace"]


def test_function_url_only_on_the_callback_api() -> None:
    with_url = {n for n, p in functions().items() if "FunctionUrlConfig" in p}
    assert with_url == {"CallbackApiFunction"}
    callback = functions()["CallbackApiFunction"]
    assert callback["FunctionUrlConfig"] == {"AuthType": "NONE"}
    assert 0 < callback["ReservedConcurrentExecutions"] <= 50


def test_intake_queue_outlives_the_starter_and_redrives() -> None:
    starter_timeout = functions()["StarterFunction"]["Timeout"]
    queue = RESOURCES["IntakeQueue"]["Properties"]
    assert queue["VisibilityTimeout"] >= 6 * starter_timeout
    assert 1 < queue["RedrivePolicy"]["maxReceiveCount"] <= 10
    dlq = RESOURCES["IntakeDeadLetterQueue"]["Properties"]
    assert dlq["MessageRetentionPeriod"] > queue["MessageRetentionPeriod"]
    mapping = functions()["StarterFunction"]["Events"]["Intake"]["Properties"]
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["ScalingConfig"]["MaximumConcurrency"] == {"Ref": "IntakeMaxConcurrency"}


def test_document_bucket_is_private_versioned_and_sends_events() -> None:
    bucket = RESOURCES["DocumentBucket"]["Properties"]
    assert bucket["VersioningConfiguration"] == {"Status": "Enabled"}
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    assert bucket["NotificationConfiguration"]["EventBridgeConfiguration"] == {
        "EventBridgeEnabled": True
    }
    rule = RESOURCES["DocumentCreatedRule"]["Properties"]["EventPattern"]
    assert rule["detail-type"] == ["Object Created"]


def test_read_model_table_has_the_dashboard_indexes() -> None:
    table = RESOURCES["ReadModelTable"]["Properties"]
    assert {i["IndexName"] for i in table["GlobalSecondaryIndexes"]} == {
        "pending",
        "active",
        "failed",
    }
    assert table["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}


def test_every_handler_exists() -> None:
    for name, props in functions().items():
        module, attr = props["Handler"].rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), attr)), name


def test_settings_variables_the_template_sets_are_real_settings() -> None:
    known = {"DOCFLOW_" + f.upper() for f in Settings.__dataclass_fields__}
    starter_only = {"DOCFLOW_ORCHESTRATOR_FUNCTION"}  # read by the starter itself
    env = dict(GLOBALS["Environment"]["Variables"])
    for props in functions().values():
        env.update(props.get("Environment", {}).get("Variables", {}))
    for name in env:
        if name.startswith("DOCFLOW_"):
            assert name in known | starter_only, name


@pytest.mark.parametrize(
    ("engine", "granted"),
    [
        ("rules", set()),
        ("textract-expense", {"textract:AnalyzeExpense"}),
        ("bedrock", {"bedrock:InvokeModel"}),
    ],
)
def test_only_the_chosen_extract_engine_is_granted(engine: str, granted: set[str]) -> None:
    conditions = TEMPLATE["Conditions"]
    true = frozenset(
        name
        for name, cond in conditions.items()
        if cond.get("Fn::Equals") == [{"Ref": "ExtractEngine"}, engine]
    )
    assert set(TEMPLATE["Parameters"]["ExtractEngine"]["AllowedValues"]) == {
        "rules",
        "textract-expense",
        "bedrock",
    }
    extract_actions = {"textract:AnalyzeExpense", "bedrock:InvokeModel", "bedrock:Converse"}
    for name, props in functions().items():
        found = {a for s in statements(props, true) for a in actions(s)} & extract_actions
        assert found == (granted if name == "OrchestratorFunction" else set()), name
    bedrock = [
        s
        for s in statements(functions()["OrchestratorFunction"])
        if "bedrock:InvokeModel" in actions(s)
    ]
    assert "foundation-model/${ExtractModelId}" in bedrock[0]["Resource"]["Fn::Sub"]
