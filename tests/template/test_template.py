"""The SAM template, parsed: durable settings, least privilege, intake wiring, local parity."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from docflow.local.resources import load_template
from docflow.observability import METRICS, NAMESPACE, SERVICE_DIMENSION
from docflow.readmodel.event_shapes import DETAIL_TYPES
from docflow.rules.model import load_rules
from docflow.settings import Settings
from tests.support.cfn import Resolver

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
    from docflow.rules.model import check_against_settings
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
    # The orchestrator may fail callbacks (a newer run ends an older run's reviews) and
    # complete them (an order's run wakes the invoices waiting for it: docs/matching.md),
    # only its own, and never heartbeat one; nothing else may send any.
    orchestrator = [
        (a, resources_of(s))
        for s in statements(functions()["OrchestratorFunction"])
        for a in actions(s)
        if "SendDurableExecutionCallback" in a
    ]
    assert sorted(a for a, _ in orchestrator) == [
        "lambda:SendDurableExecutionCallbackFailure",
        "lambda:SendDurableExecutionCallbackSuccess",
    ]
    assert all(named[0]["Fn::Sub"] == arn for _, named in orchestrator)
    # The path for piles: the batcher answers documents (and its own wait for a job, when
    # the job's event came first); the batch job events function answers only the batcher.
    batcher_arn = arn.replace("-orchestrator:*", "-batcher:*")
    assert sends_of("BatcherFunction") == {
        "lambda:SendDurableExecutionCallbackSuccess": [arn, batcher_arn]
    }
    assert sends_of("BatchJobEventsFunction") == {
        "lambda:SendDurableExecutionCallbackSuccess": [batcher_arn]
    }
    senders = ("CallbackApiFunction", "OrchestratorFunction", "BatcherFunction")
    for name, props in functions().items():
        if name not in (*senders, "BatchJobEventsFunction"):
            assert not any(
                "SendDurableExecutionCallback" in a for s in statements(props) for a in actions(s)
            ), name


def sends_of(function: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for s in statements(functions()[function]):
        for a in actions(s):
            if "SendDurableExecutionCallback" in a:
                found.setdefault(a, []).extend(r["Fn::Sub"] for r in resources_of(s))
    return found


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
                    "bedrock:ListModelInvocationJobs",  # a list action: no resource ARN
                    "textract:DetectDocumentText",
                    "textract:AnalyzeExpense",
                    "textract:AnalyzeDocument",
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
    # A parameter now (docs/security.md); its default still bounds anonymous traffic.
    assert 0 < int(Resolver(TEMPLATE)(callback["ReservedConcurrentExecutions"])) <= 100


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
        "orders",  # finalized purchase orders by number, for the invoices citing them
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


# ---------------------------------------------------------------- the operators' view
_SUB = re.compile(r"\$\{([^}!]+)\}")
_SEARCH = re.compile(r"SEARCH\('\{([^}]*)\} MetricName=\"(\w+)\"'")
AWS_METRICS = {
    "AWS/SQS": {"ApproximateNumberOfMessagesVisible", "ApproximateAgeOfOldestMessage"},
    "AWS/Lambda": {"Errors", "Duration", "Invocations", "Throttles"},
}


def dashboard() -> tuple[dict[str, Any], set[str]]:
    body = RESOURCES["OperatorsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    names = set(_SUB.findall(body))
    return json.loads(_SUB.sub("X", body)), names


def docflow_metric_ok(name: str, dimensions: set[str]) -> None:
    assert name in METRICS, f"the dashboard names {name}, which no code emits"
    expected = set(METRICS[name][0]) | {SERVICE_DIMENSION}
    assert dimensions == expected, (name, dimensions, expected)


def test_dashboard_body_is_json_and_names_only_metrics_the_code_emits() -> None:
    body, _ = dashboard()
    seen = set()
    for widget in body["widgets"]:
        if widget["type"] != "metric":
            continue
        for row in widget["properties"]["metrics"]:
            if isinstance(row[0], dict):
                (keys, name), *_ = _SEARCH.findall(row[0]["expression"])
                namespace, *dims = keys.split(",")
                assert namespace == NAMESPACE
                docflow_metric_ok(name, set(dims))
                seen.add(name)
                continue
            namespace, name, *rest = row
            pairs = [x for x in rest if not isinstance(x, dict)]
            dims = dict(zip(pairs[::2], pairs[1::2], strict=True))
            if namespace == NAMESPACE:
                docflow_metric_ok(name, set(dims))
                assert dims[SERVICE_DIMENSION] == "docflow"
                seen.add(name)
            else:
                assert name in AWS_METRICS[namespace], (namespace, name)
                assert all(v == "X" for v in dims.values()), "resource names come from the stack"
    wanted = {"DocumentsFailedByReason", "PagesRead", "ReaderThrottles", "ReaderCapWaits"}
    assert wanted | {"PendingReviews", "OverdueReviews", "DocumentCostUsd"} <= seen


def test_dashboard_names_only_resources_and_parameters_the_template_defines() -> None:
    body, names = dashboard()
    defined = set(RESOURCES) | set(TEMPLATE["Parameters"])
    for name in names:
        if not name.startswith("AWS::"):
            assert name.split(".")[0] in defined, name
    endpoints = {w["properties"]["endpoint"] for w in body["widgets"] if w["type"] == "custom"}
    raw = RESOURCES["OperatorsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    assert endpoints == {"X"} and raw.count('"endpoint": "${DashboardWidgetFunction.Arn}"') == 3
    assert functions()["DashboardWidgetFunction"]["Handler"] == "status_recorder.widgets.handler"
    lists = [w["properties"]["params"]["list"] for w in body["widgets"] if w["type"] == "custom"]
    assert lists == ["pending", "stuck", "failed"]


def test_every_metric_in_the_registry_is_emitted_by_some_code() -> None:
    root = Path(__file__).resolve().parents[2]
    source = "\n".join(
        p.read_text()
        for folder in (
            "docflow",
            "status_recorder",
            "orchestrator",
            "starter",
            "callback_api",
            "batcher",
        )
        for p in (root / folder).rglob("*.py")
    )
    for name in METRICS:
        assert re.search(rf'count\(\s*"{name}"', source), f"{name} is never emitted"


def test_the_widget_function_only_reads_the_lists_and_one_documents_items() -> None:
    lists, document = statements(functions()["DashboardWidgetFunction"])
    assert actions(lists) == ["dynamodb:Query"]
    assert [r["Fn::Sub"] for r in resources_of(lists)] == [
        "${ReadModelTable.Arn}/index/pending",
        "${ReadModelTable.Arn}/index/active",
        "${ReadModelTable.Arn}/index/failed",
    ]
    # A document's page reads that document's partition of the table, nothing else of it.
    assert actions(document) == ["dynamodb:GetItem", "dynamodb:Query"]
    assert resources_of(document) == [{"Fn::GetAtt": ["ReadModelTable", "Arn"]}]
    leading = document["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    assert leading == ["DOC#*"]


def test_alarms_on_docflow_metrics_name_the_service_dimension() -> None:
    for spec in RESOURCES.values():
        props = spec["Properties"]
        if spec["Type"] == "AWS::CloudWatch::Alarm" and props["Namespace"] == NAMESPACE:
            dims = {d["Name"]: d["Value"] for d in props.get("Dimensions", [])}
            docflow_metric_ok(props["MetricName"], set(dims))


def test_only_the_recorder_publishes_domain_events_and_only_to_the_stacks_bus() -> None:
    publishers = {
        n for n, p in functions().items() for s in statements(p) if "events:PutEvents" in actions(s)
    }
    assert publishers == {"StatusRecorderFunction"}
    (put,) = [
        s
        for s in statements(functions()["StatusRecorderFunction"])
        if "events:PutEvents" in actions(s)
    ]
    assert put["Resource"] == {"Fn::GetAtt": ["DomainEventBus", "Arn"]}
    recorder_env = functions()["StatusRecorderFunction"]["Environment"]["Variables"]
    assert recorder_env["DOCFLOW_EVENT_BUS_NAME"] == {"Ref": "DomainEventBus"}
    rule = RESOURCES["DomainEventsRule"]["Properties"]
    assert rule["EventBusName"] == {"Ref": "DomainEventBus"}
    assert rule["EventPattern"]["source"] == ["docflow"]
    assert set(rule["EventPattern"]["detail-type"]) == set(DETAIL_TYPES.values())


@pytest.mark.parametrize(
    ("engine", "granted"),
    [
        ("rules", set()),
        ("textract-expense", {"textract:AnalyzeExpense"}),
        ("textract", {"textract:AnalyzeDocument"}),
        ("bedrock", {"bedrock:InvokeModel"}),
    ],
)
def test_only_the_chosen_extract_engine_is_granted(engine: str, granted: set[str]) -> None:
    assert set(TEMPLATE["Parameters"]["ExtractEngine"]["AllowedValues"]) == {
        "rules",
        "textract-expense",
        "textract",
        "bedrock",
    }
    resolve = Resolver(TEMPLATE, ExtractEngine=engine)
    extract_actions = {
        "textract:AnalyzeExpense",
        "textract:AnalyzeDocument",
        "bedrock:InvokeModel",
        "bedrock:Converse",
    }
    for name, props in functions().items():
        found = {a for s in resolve.statements(props) for a in actions(s)} & extract_actions
        assert found == (granted if name == "OrchestratorFunction" else set()), name


FOUNDATION = "anthropic.claude-3-haiku-20240307-v1:0"
PROFILE = "us.anthropic.claude-3-5-haiku-20241022-v1:0"
PROFILE_ARN = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5"


def model_grants(**params: str) -> list[dict[str, Any]]:
    """The orchestrator's bedrock:InvokeModel statements with these parameters."""
    resolve = Resolver(TEMPLATE, **params)
    return [
        {k: v for k, v in s.items() if k in ("Resource", "Condition")}
        for s in resolve.statements(functions()["OrchestratorFunction"])
        if "bedrock:InvokeModel" in actions(s)
    ]


@pytest.mark.parametrize("use", ["Extract", "Enrich"])
def test_a_foundation_model_id_is_granted_in_this_region_only(use: str) -> None:
    grants = model_grants(**{f"{use}Engine": "bedrock", f"{use}ModelId": FOUNDATION})
    assert grants == [
        {"Resource": f"arn:aws:bedrock:us-east-1::foundation-model/{FOUNDATION}"},
    ]


@pytest.mark.parametrize("use", ["Extract", "Enrich"])
def test_an_inference_profile_id_is_granted_with_its_model_in_every_region(use: str) -> None:
    grants = model_grants(**{f"{use}Engine": "bedrock", f"{use}ModelId": PROFILE})
    assert grants == [
        {
            "Resource": [
                f"arn:aws:bedrock:us-east-1:123456789012:inference-profile/{PROFILE}",
                "arn:aws:bedrock:*::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0",
            ]
        },
    ]


@pytest.mark.parametrize("use", ["Extract", "Enrich"])
def test_an_inference_profile_arn_reaches_models_only_through_that_profile(use: str) -> None:
    grants = model_grants(**{f"{use}Engine": "bedrock", f"{use}ModelId": PROFILE_ARN})
    assert grants == [
        {"Resource": PROFILE_ARN},
        {
            "Resource": "arn:aws:bedrock:*::foundation-model/*",
            "Condition": {"StringEquals": {"bedrock:InferenceProfileArn": PROFILE_ARN}},
        },
    ]


def test_rules_engines_are_granted_no_model_and_both_models_are_granted_apart() -> None:
    assert model_grants(ExtractEngine="rules", EnrichEngine="rules") == []
    both = model_grants(
        ExtractEngine="bedrock",
        ExtractModelId=FOUNDATION,
        EnrichEngine="bedrock",
        EnrichModelId=PROFILE,
    )
    assert len(both) == 2 and both[0]["Resource"].endswith(FOUNDATION)
    env = functions()["OrchestratorFunction"]["Environment"]["Variables"]
    assert env["DOCFLOW_ENRICH_MODEL_ID"] == {"Ref": "EnrichModelId"}
    assert env["DOCFLOW_PILE_PREFIX"] == {"Ref": "PileKeyPrefix"}
    assert env["DOCFLOW_ENRICH_TOKENS_PER_MINUTE"] == {"Ref": "EnrichTokensPerMinute"}
    # The budget lives in the lease table, on which the orchestrator may already update items.
    lease = [
        s
        for s in statements(functions()["OrchestratorFunction"])
        if s.get("Resource") == {"Fn::GetAtt": ["ReaderLeaseTable", "Arn"]}
    ]
    assert lease and "dynamodb:UpdateItem" in actions(lease[0])


# ---------------------------------------------------------------- the path for piles
BEDROCK_JOBS = (
    "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:model-invocation-job/*"
)


def test_the_batcher_is_durable_and_started_by_its_schedule_and_a_filling_pool() -> None:
    batcher = functions()["BatcherFunction"]
    assert batcher["Handler"] == "batcher.app.handler"
    assert batcher["AutoPublishAlias"] == "live" and "DurableConfig" in batcher
    assert batcher["FunctionName"] == {"Fn::Sub": "${AWS::StackName}-batcher"}
    alias = {"Ref": "BatcherFunction.Alias"}
    for starter in ("BatcherScheduleFunction", "OrchestratorFunction"):
        props = functions()[starter]
        assert props["Environment"]["Variables"]["DOCFLOW_BATCHER_FUNCTION"] == alias
        invokes = [s for s in statements(props) if "lambda:InvokeFunction" in actions(s)]
        assert alias in [r for s in invokes for r in resources_of(s)], starter
    schedule = functions()["BatcherScheduleFunction"]["Events"]["Tick"]
    assert schedule["Type"] == "Schedule"


def test_bedrock_job_actions_are_scoped_and_pass_role_names_only_the_service_role() -> None:
    batcher = statements(functions()["BatcherFunction"])
    jobs = [s for s in batcher if "bedrock:GetModelInvocationJob" in actions(s)]
    assert len(jobs) == 1
    assert set(actions(jobs[0])) == {
        "bedrock:CreateModelInvocationJob",
        "bedrock:GetModelInvocationJob",
        "bedrock:StopModelInvocationJob",
    }
    assert [r["Fn::Sub"] for r in resources_of(jobs[0])] == [BEDROCK_JOBS]
    passes = [s for s in batcher if "iam:PassRole" in actions(s)]
    assert len(passes) == 1 and actions(passes[0]) == ["iam:PassRole"]
    assert resources_of(passes[0]) == [{"Fn::GetAtt": ["BatchInferenceRole", "Arn"]}]
    assert passes[0]["Condition"]["StringEquals"]["iam:PassedToService"] == (
        "bedrock.amazonaws.com"
    )
    for name, props in functions().items():
        if name != "BatcherFunction":
            assert not any(
                (a.startswith("bedrock:") and "ModelInvocationJob" in a) or a == "iam:PassRole"
                for s in statements(props)
                for a in actions(s)
            ), name


def test_the_service_role_trusts_bedrock_for_this_account_and_reads_only_the_pile() -> None:
    role = RESOURCES["BatchInferenceRole"]["Properties"]
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert trust["Condition"]["ArnLike"]["aws:SourceArn"]["Fn::Sub"] == BEDROCK_JOBS
    (policy,) = role["Policies"]
    granted = {
        a: [r if isinstance(r, dict) else {"Fn::Sub": r} for r in resources_of(s)]
        for s in policy["PolicyDocument"]["Statement"]
        if "Fn::If" not in s  # the profile's model (tests/template/test_security.py)
        for a in actions(s)
    }
    assert granted["s3:GetObject"] == [{"Fn::Sub": "${ArtifactBucket.Arn}/piles/jobs/*/input/*"}]
    assert granted["s3:PutObject"] == [{"Fn::Sub": "${ArtifactBucket.Arn}/piles/jobs/*/output/*"}]
    assert set(granted) == {"s3:GetObject", "s3:PutObject", "s3:ListBucket"}


def test_the_job_state_rule_feeds_only_the_batch_job_events_function() -> None:
    rule = RESOURCES["BatchJobStateRule"]["Properties"]
    assert rule["EventPattern"] == {
        "source": ["aws.bedrock"],
        "detail-type": ["Batch Inference Job State Change"],
    }
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": ["BatchJobEventsFunction", "Arn"]}
    permission = RESOURCES["BatchJobEventsPermission"]["Properties"]
    assert permission["Principal"] == "events.amazonaws.com"
    assert permission["SourceArn"] == {"Fn::GetAtt": ["BatchJobStateRule", "Arn"]}
    from docflow.piles.jobwait import EVENT_DETAIL_TYPE, EVENT_SOURCE

    pattern = rule["EventPattern"]
    assert (pattern["source"][0], pattern["detail-type"][0]) == (EVENT_SOURCE, EVENT_DETAIL_TYPE)


def test_pile_parameters_are_routed_and_the_job_timeout_is_the_services_range() -> None:
    params = TEMPLATE["Parameters"]
    env = GLOBALS["Environment"]["Variables"]
    assert params["PileKeyPrefix"]["Default"] == Settings().pile_prefix == "backfill/"
    assert env["DOCFLOW_PILE_PREFIX"] == {"Ref": "PileKeyPrefix"}
    assert env["DOCFLOW_PILE_TABLE"] == {"Ref": "PileTable"}
    hours = params["PileJobTimeoutHours"]
    assert (hours["MinValue"], hours["MaxValue"]) == (24, 168)
    assert env["DOCFLOW_PILE_JOB_TIMEOUT_HOURS"] == {"Ref": "PileJobTimeoutHours"}
    from docflow.settings import SettingsError

    for bad in (23, 169):
        with pytest.raises(SettingsError, match=r"24\.\.168"):
            Settings(pile_job_timeout_hours=bad)
    assert int(params["PileMinRecords"]["Default"]) == Settings().pile_min_records == 100


@pytest.mark.parametrize(
    ("model", "profile"),
    [
        ("anthropic.claude-3-haiku-20240307-v1:0", False),
        ("us.anthropic.claude-3-haiku-20240307-v1:0", True),
    ],
)
def test_the_pile_model_may_be_a_foundation_model_or_an_inference_profile(
    model: str, profile: bool
) -> None:
    condition = TEMPLATE["Conditions"]["PileModelIsProfile"]["Fn::Or"]
    geography = model.split(".", maxsplit=1)[0]
    assert any(c["Fn::Equals"][1] == geography for c in condition) is profile
    for c in condition:  # each compares the id's first dot-separated part
        assert c["Fn::Equals"][0] == {
            "Fn::Select": [0, {"Fn::Split": [".", {"Ref": "PileModelId"}]}]
        }
    true = frozenset({"PileModelIsProfile"} if profile else set())
    models = [
        r
        for s in statements(functions()["BatcherFunction"], true)
        if actions(s) == ["bedrock:CreateModelInvocationJob"]
        for r in resources_of(s)
    ]
    if profile:
        profile_arn, foundation = models
        assert profile_arn["Fn::Sub"].endswith(":inference-profile/${PileModelId}")
        parts, built = foundation["Fn::Join"][1], []
        for part in parts:  # resolve the Join for this id, as CloudFormation would
            if isinstance(part, str):
                built.append(part)
            elif "Fn::Sub" in part:
                built.append(part["Fn::Sub"])
            else:
                built.append(model.split(".")[part["Fn::Select"][0]])
        assert "".join(built) == (
            "arn:${AWS::Partition}:bedrock:*::foundation-model/" + model.split(".", 1)[1]
        )
    else:
        assert [m["Fn::Sub"] for m in models] == [
            "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/${PileModelId}"
        ]


def test_the_inbox_is_a_base_table_keyed_by_reviewer_and_waiting_since() -> None:
    table = RESOURCES["InboxTable"]["Properties"]
    assert table["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert table["SSESpecification"] == {"SSEEnabled": True}
    assert "GlobalSecondaryIndexes" not in table
    # The links table lost its index with the attributes it was keyed on.
    links = RESOURCES["ReviewLinksTable"]["Properties"]
    assert "GlobalSecondaryIndexes" not in links
    assert links["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert GLOBALS["Environment"]["Variables"]["DOCFLOW_INBOX_TABLE"] == {"Ref": "InboxTable"}


def _grants(name: str, table: str) -> dict[str, set[str]]:
    """Which actions a function has on a table, and on any index of it."""
    grants: dict[str, set[str]] = {"table": set(), "index": set()}
    for statement in statements(functions()[name]):
        for resource in resources_of(statement):
            text = json.dumps(resource)
            if f'"{table}"' in text or f"{{{table}." in text:
                grants["index" if "/index/" in text else "table"] |= set(actions(statement))
    return grants


def test_the_inbox_table_is_granted_to_its_writers_and_readers_only() -> None:
    wanted = {
        # The notifier lists stages; an ending (timeout, supersede) takes them out.
        "OrchestratorFunction": {"dynamodb:PutItem", "dynamodb:DeleteItem"},
        # The inbox page reads; a vote or an ending takes the stage out.
        "CallbackApiFunction": {"dynamodb:Query", "dynamodb:DeleteItem"},
        "ReviewDigestFunction": {"dynamodb:Query"},
    }
    for name in functions():
        grants = _grants(name, "InboxTable")
        assert grants["table"] == wanted.get(name, set()), name
        assert not grants["index"], name
    # The put is a transaction that checks the link slot is still open.
    assert (
        "dynamodb:ConditionCheckItem"
        in _grants("OrchestratorFunction", "ReviewLinksTable")["table"]
    )
    for name in functions():
        assert not _grants(name, "ReviewLinksTable")["index"], name
    # The callback API reads a page's stage records in one batch; it writes nothing new.
    assert _grants("CallbackApiFunction", "ReviewLinksTable")["table"] == {
        "dynamodb:GetItem",
        "dynamodb:UpdateItem",
        "dynamodb:BatchGetItem",
    }


def test_the_digest_runs_on_a_schedule_with_mail_and_the_review_tables_only() -> None:
    props = functions()["ReviewDigestFunction"]
    (event,) = props["Events"].values()
    assert event["Type"] == "Schedule" and event["Properties"]["Schedule"].startswith("rate(")
    granted = {a for s in statements(props) for a in actions(s)}
    assert granted == {
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:Query",
        "secretsmanager:GetSecretValue",
        "ses:SendEmail",
        "ses:SendRawEmail",
    }
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    assert "build-ReviewDigestFunction:" in makefile


def test_the_einvoice_rules_function_reaches_nothing_and_only_the_orchestrator_invokes_it() -> None:
    props = functions()["EInvoiceRulesFunction"]
    assert props["Handler"] == "einvoice_rules.app.handler"
    assert not props.get("Policies") and not props.get("Events")  # its logs only
    invokers = {
        name
        for name, fn in functions().items()
        for s in statements(fn)
        if "lambda:InvokeFunction" in actions(s)
        and "EInvoiceRulesFunction" in json.dumps(s.get("Resource"))
    }
    assert invokers == {"OrchestratorFunction"}
    env = functions()["OrchestratorFunction"]["Environment"]["Variables"]
    assert env["DOCFLOW_EINVOICE_RULES_FUNCTION"] == {"Ref": "EInvoiceRulesFunction"}
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    assert "build-EInvoiceRulesFunction:" in makefile
    assert "requirements/einvoice-rules.txt" in makefile


def test_otel_export_is_off_by_default_and_on_needs_the_adot_layer() -> None:
    from docflow.telemetry import spans

    params, env = TEMPLATE["Parameters"], GLOBALS["Environment"]["Variables"]
    assert (params["OtelExport"]["Default"], params["OtelLayerArn"]["Default"]) == ("off", "")
    # Off: DOCFLOW_OTEL names no mode, so the functions never import OpenTelemetry.
    assert env[spans.MODE_ENV] == {"Fn::If": ["OtelOn", spans.OTLP, "off"]}
    assert GLOBALS["Layers"] == {
        "Fn::If": ["OtelOn", [{"Ref": "OtelLayerArn"}], {"Ref": "AWS::NoValue"}]
    }
    assert env["AWS_LAMBDA_EXEC_WRAPPER"]["Fn::If"][:2] == ["OtelOn", "/opt/otel-instrument"]
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"]["Fn::If"][1] == {"Ref": "OtelExporterEndpoint"}
    rule = TEMPLATE["Rules"]["OtelExportNeedsTheLayer"]
    assert rule["Assertions"][0]["Assert"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "OtelLayerArn"}, ""]}]
    }
