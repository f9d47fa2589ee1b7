"""The template's security and deploy hardening (issue 31, items 9 to 13; docs/security.md),
read from template.yaml as CloudFormation would resolve it (`tests.support.cfn.Resolver`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import load_template
from docflow.pipeline.read_batch import read_page_batch
from docflow.review.web.previews import PreviewStore, preview_key
from docflow.settings import Settings, load_settings
from docflow.storage import (
    EXPIRY_TAG,
    PAGE_TEXT_EXPIRY,
    PREVIEW_EXPIRY,
    DocumentStore,
    page_text_key,
    page_words_key,
    result_key,
)
from tests.kit import pdfgen
from tests.support.aws import Stack
from tests.support.cfn import NO_VALUE, Resolver

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
PARAMS: dict[str, Any] = TEMPLATE["Parameters"]
SECURITY_DOC = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def of_type(kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in RESOURCES.items() if v["Type"] == kind}


def functions() -> dict[str, dict[str, Any]]:
    return {k: v["Properties"] for k, v in of_type("AWS::Serverless::Function").items()}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def actions(statement: dict[str, Any]) -> list[str]:
    return as_list(statement["Action"])


# ---------------------------------------------------------------- 9. logs, TLS, retention
def test_every_function_logs_to_its_own_log_group_with_the_retention_parameter() -> None:
    assert int(PARAMS["LogRetentionDays"]["Default"]) == 30
    resolve = Resolver(TEMPLATE)
    groups = of_type("AWS::Logs::LogGroup")
    used = set()
    for name, props in functions().items():
        function_name = resolve(props["FunctionName"])
        assert function_name.startswith("docflow-"), name  # named by the stack
        group = props["LoggingConfig"]["LogGroup"]["Ref"]
        used.add(group)
        spec = groups[group]["Properties"]
        assert resolve(spec["LogGroupName"]) == f"/aws/lambda/{function_name}", name
        assert spec["RetentionInDays"] == {"Ref": "LogRetentionDays"}, name
    assert used == set(groups), "a log group no function writes to"


def test_every_bucket_refuses_requests_without_tls() -> None:
    policies = {
        p["Properties"]["Bucket"]["Ref"]: p for p in of_type("AWS::S3::BucketPolicy").values()
    }
    for bucket, spec in of_type("AWS::S3::Bucket").items():
        assert bucket in policies, f"{bucket} has no bucket policy"
        policy = policies[bucket]
        assert policy.get("Condition") == spec.get("Condition"), bucket
        denies = [
            s
            for s in policy["Properties"]["PolicyDocument"]["Statement"]
            if s["Effect"] == "Deny"
            and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        ]
        assert len(denies) == 1, bucket
        (deny,) = denies
        assert deny["Principal"] == "*" and actions(deny) == ["s3:*"]
        assert deny["Resource"] == [
            {"Fn::GetAtt": [bucket, "Arn"]},
            {"Fn::Sub": f"${{{bucket}.Arn}}/*"},
        ]


# Each named in docs/security.md with the reason it outlives a stack deletion.
MUST_OUTLIVE = {
    "DocumentBucket",
    "ArtifactBucket",
    "AccessLogBucket",
    "ReadModelTable",
    "ReviewLinksTable",
    "SigningSecret",
    "IntakeDeadLetterQueue",
    "DomainEventsQueue",
    "SupplierTable",
    "DuplicateTable",
    "OrderTable",
}
# What holds data: each is retained, or docs/security.md says why it need not be (a table
# added later cannot slip through as neither).
STATEFUL = (
    "AWS::DynamoDB::Table",
    "AWS::S3::Bucket",
    "AWS::SecretsManager::Secret",
    "AWS::SQS::Queue",
)


def test_what_must_outlive_a_stack_deletion_is_retained_and_documented() -> None:
    retained = {
        name
        for name, spec in RESOURCES.items()
        if spec.get("DeletionPolicy") == "Retain" and spec.get("UpdateReplacePolicy") == "Retain"
    }
    assert retained >= MUST_OUTLIVE
    # Half a policy protects from one of the two ways to lose the data only.
    for name, spec in RESOURCES.items():
        assert spec.get("DeletionPolicy") == spec.get("UpdateReplacePolicy"), name
    for name in retained:
        assert f"`{name}`" in SECURITY_DOC, f"docs/security.md does not say why {name} stays"
    not_retained = SECURITY_DOC.split("Not retained, because", 1)[1].split("\n\n", 1)[0]
    for name, spec in RESOURCES.items():
        if spec["Type"] in STATEFUL and name not in retained:
            assert f"`{name}`" in not_retained, f"{name} holds data: retain it or say why not"


def lifecycle(bucket: str) -> dict[str, dict[str, Any]]:
    rules = RESOURCES[bucket]["Properties"]["LifecycleConfiguration"]["Rules"]
    return {r["Id"]: r for r in rules}


def test_lifecycle_rules_match_the_keys_and_tags_the_code_writes() -> None:
    doc = DocumentRef(bucket="b", key="in/a.pdf", version_id="v1", sequencer="01")
    rules = lifecycle("ArtifactBucket")
    for rule_id, expiry, days, key in (
        ("page-text", PAGE_TEXT_EXPIRY, "PageTextExpirationDays", page_text_key(doc, 1)),
        ("page-text", PAGE_TEXT_EXPIRY, "PageTextExpirationDays", page_words_key(doc, 1)),
        ("previews", PREVIEW_EXPIRY, "PreviewExpirationDays", preview_key(doc, 1)),
    ):
        rule = rules[rule_id]
        assert rule["Status"] == "Enabled"
        assert key.startswith(rule["Prefix"]), (rule_id, key)
        assert rule["TagFilters"] == [{"Key": EXPIRY_TAG, "Value": expiry}]
        assert rule["ExpirationInDays"] == {"Ref": days}
    # Nothing expires an untagged artifact (the finalized record sits under the same prefix).
    for rule in rules.values():
        if "ExpirationInDays" in rule:
            assert rule.get("TagFilters"), rule["Id"]
    assert result_key(doc).startswith(rules["page-text"]["Prefix"])
    # A waiting review page reads page text: it must outlive the default execution.
    text_days = int(PARAMS["PageTextExpirationDays"]["Default"])
    assert text_days * 86400 > int(PARAMS["ExecutionTimeoutSeconds"]["Default"])
    # The document bucket keeps every current version; replaced ones expire.
    versions = lifecycle("DocumentBucket")["noncurrent-versions"]
    assert versions["NoncurrentVersionExpiration"] == {
        "NoncurrentDays": {"Ref": "NoncurrentVersionExpirationDays"}
    }
    assert not any("ExpirationInDays" in r for r in lifecycle("DocumentBucket").values())


class _Step:
    attempt = 1

    class logger:
        @staticmethod
        def info(*_: Any, **__: Any) -> None: ...

        @staticmethod
        def warning(*_: Any, **__: Any) -> None: ...


def tags(bucket: str, key: str) -> dict[str, str]:
    answer = aws.client("s3").get_object_tagging(Bucket=bucket, Key=key)
    return {t["Key"]: t["Value"] for t in answer["TagSet"]}


def test_page_text_words_and_previews_are_written_with_their_expiry_tag(stack: Stack) -> None:
    doc = stack.upload("in/letter.pdf", pdfgen.text_pdf("Dear customer, page one of one."))
    read_page_batch(doc, 0, 1, 1)(_Step())
    artifacts = load_settings().artifact_bucket
    assert tags(artifacts, page_text_key(doc, 1)) == {EXPIRY_TAG: PAGE_TEXT_EXPIRY}
    assert tags(artifacts, page_words_key(doc, 1)) == {EXPIRY_TAG: PAGE_TEXT_EXPIRY}
    png, cached = PreviewStore(DocumentStore(artifacts), 10_000_000).get(doc, 1, lambda: False)
    assert png.startswith(b"\x89PNG") and not cached
    assert tags(artifacts, preview_key(doc, 1)) == {EXPIRY_TAG: PREVIEW_EXPIRY}
    # Writers of tagged objects may tag (PutObject with a Tagging header needs it).
    for writer, prefix in (("OrchestratorFunction", "/*"), ("CallbackApiFunction", "/docs/*")):
        granted = [
            s
            for s in functions()[writer]["Policies"][0]["Statement"]
            if s.get("Resource") == {"Fn::Sub": f"${{ArtifactBucket.Arn}}{prefix}"}
        ]
        assert "s3:PutObjectTagging" in actions(granted[0]), writer


def ses_statements(props: dict[str, Any], resolve: Resolver) -> list[dict[str, Any]]:
    return [s for s in resolve.statements(props) if "ses:SendEmail" in actions(s)]


@pytest.mark.parametrize("function", ["OrchestratorFunction", "ReviewDigestFunction"])
def test_mail_is_sent_only_as_the_review_sender(function: str) -> None:
    resolve = Resolver(TEMPLATE, ReviewSender="review@mail.example.com")
    (statement,) = ses_statements(functions()[function], resolve)
    assert statement["Resource"] == [
        "arn:aws:ses:us-east-1:123456789012:identity/review@mail.example.com",
        "arn:aws:ses:us-east-1:123456789012:identity/mail.example.com",
    ]
    assert statement["Condition"] == {
        "StringEquals": {"ses:FromAddress": "review@mail.example.com"}
    }
    for name, props in functions().items():
        for s in ses_statements(props, resolve):
            assert not any(r.endswith("identity/*") for r in as_list(s["Resource"])), name


def test_s3_access_logging_is_a_parameter_off_by_default() -> None:
    assert PARAMS["EnableAccessLogging"]["Default"] == "false"
    assert RESOURCES["AccessLogBucket"]["Condition"] == "AccessLogging"
    off, on = Resolver(TEMPLATE), Resolver(TEMPLATE, EnableAccessLogging="true")
    assert not off.condition("AccessLogging") and on.condition("AccessLogging")
    for bucket in ("DocumentBucket", "ArtifactBucket"):
        props = RESOURCES[bucket]["Properties"]
        assert "LoggingConfiguration" not in off(props), bucket
        logging = on(props)["LoggingConfiguration"]
        assert logging["DestinationBucketName"] == "<AccessLogBucket>", bucket
    policy = RESOURCES["AccessLogBucketPolicy"]["Properties"]["PolicyDocument"]
    (writes,) = [s for s in policy["Statement"] if s["Effect"] == "Allow"]
    assert writes["Principal"] == {"Service": "logging.s3.amazonaws.com"}
    assert writes["Condition"]["ArnLike"]["aws:SourceArn"] == [
        {"Fn::GetAtt": ["DocumentBucket", "Arn"]},
        {"Fn::GetAtt": ["ArtifactBucket", "Arn"]},
    ]


def test_the_local_stack_makes_no_resource_that_is_off_by_default(stack: Stack) -> None:
    buckets = {b["Name"] for b in aws.client("s3").list_buckets()["Buckets"]}
    assert stack.names("DocumentBucket") in buckets
    assert not any("accesslog" in b.lower() for b in buckets), buckets


# ---------------------------------------------------------------- 10. the reviewers' edge
def test_the_callback_apis_concurrency_is_a_parameter_with_a_higher_default() -> None:
    callback = functions()["CallbackApiFunction"]
    assert callback["ReservedConcurrentExecutions"] == {"Ref": "CallbackApiConcurrency"}
    assert int(PARAMS["CallbackApiConcurrency"]["Default"]) >= 50


def test_cloudfront_with_a_waf_rate_rule_is_a_condition_and_links_follow_it() -> None:
    assert PARAMS["EnableCallbackCdn"]["Default"] == "false"
    for name in ("CallbackDistribution", "CallbackWebAcl"):
        assert RESOURCES[name]["Condition"] in ("CallbackCdn", "CallbackCdnOwnAcl"), name
    acl = RESOURCES["CallbackWebAcl"]["Properties"]
    assert acl["Scope"] == "CLOUDFRONT"
    (rate,) = [r for r in acl["Rules"] if "RateBasedStatement" in r["Statement"]]
    assert rate["Action"] == {"Block": {}}
    assert rate["Statement"]["RateBasedStatement"] == {
        "Limit": {"Ref": "CallbackRateLimit"},
        "AggregateKeyType": "IP",
    }
    config = RESOURCES["CallbackDistribution"]["Properties"]["DistributionConfig"]
    (origin,) = config["Origins"]
    # https://<id>.lambda-url.<region>.on.aws/ -> its host, as Select 2 of Split "/" gives it.
    url = {"Fn::GetAtt": ["CallbackApiFunctionUrl", "FunctionUrl"]}
    assert origin["DomainName"] == {"Fn::Select": [2, {"Fn::Split": ["/", url]}]}
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    behaviour = config["DefaultCacheBehavior"]
    assert "POST" in behaviour["AllowedMethods"]
    assert behaviour["ViewerProtocolPolicy"] in ("redirect-to-https", "https-only")
    own = Resolver(TEMPLATE, EnableCallbackCdn="true")
    assert own(config["WebACLId"]) == "<CallbackWebAcl.Arn>"
    given = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/1"
    assert (
        Resolver(TEMPLATE, EnableCallbackCdn="true", CallbackWebAclArn=given)(config["WebACLId"])
        == given
    )
    # Every link base follows the condition: the Function URL, or the distribution's domain.
    bases = {
        name: props["Environment"]["Variables"]["DOCFLOW_REVIEW_BASE_URL"]
        for name, props in functions().items()
        if "DOCFLOW_REVIEW_BASE_URL" in props.get("Environment", {}).get("Variables", {})
    }
    assert set(bases) == {"OrchestratorFunction", "ReviewDigestFunction"}
    outputs = TEMPLATE["Outputs"]["CallbackUrl"]["Value"]
    for base in (*bases.values(), outputs):
        assert Resolver(TEMPLATE)(base) == "<CallbackApiFunctionUrl.FunctionUrl>"
        assert own(base) == "https://${CallbackDistribution.DomainName}/"
    # The web ACL made here needs us-east-1: the stack refuses any other Region up front.
    rule = TEMPLATE["Rules"]["CallbackCdnAclInUsEast1"]
    (assertion,) = rule["Assertions"]
    assert assertion["Assert"] == {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]}
    assert "us-east-1" in SECURITY_DOC and "CloudFront domain" in SECURITY_DOC


def test_with_cloudfront_the_function_url_answers_only_cloudfronts_requests() -> None:
    """The path around CloudFront and WAF is closed (docflow/review/access/origin.py): CloudFront
    sends a generated secret in a header; the callback API reads that secret, and only it."""
    assert PARAMS["CallbackOriginLock"]["Default"] == "true"
    assert RESOURCES["CallbackOriginSecret"]["Condition"] == "CallbackOriginLocked"
    (origin,) = RESOURCES["CallbackDistribution"]["Properties"]["DistributionConfig"]["Origins"]
    callback = functions()["CallbackApiFunction"]
    secret_env = callback["Environment"]["Variables"]["DOCFLOW_ORIGIN_SECRET_ID"]

    locked = Resolver(TEMPLATE, EnableCallbackCdn="true")
    assert locked(origin["OriginCustomHeaders"]) == [
        {
            "HeaderName": "X-Docflow-Origin",
            "HeaderValue": "{{resolve:secretsmanager:${CallbackOriginSecret}:SecretString}}",
        }
    ]
    assert locked(secret_env) == "<CallbackOriginSecret>"
    reads = [
        s for s in locked.statements(callback) if "secretsmanager:GetSecretValue" in actions(s)
    ]
    assert reads and all("<CallbackOriginSecret>" in as_list(s["Resource"]) for s in reads)

    for unlocked in (
        Resolver(TEMPLATE),  # no CloudFront: the Function URL is the only door
        Resolver(TEMPLATE, EnableCallbackCdn="true", CallbackOriginLock="false"),
    ):
        assert not unlocked.condition("CallbackOriginLocked")
        assert unlocked(origin["OriginCustomHeaders"]) is NO_VALUE
        assert unlocked(secret_env) == ""
        for statement in unlocked.statements(callback):
            assert "<CallbackOriginSecret>" not in as_list(statement["Resource"])
    assert "X-Docflow-Origin" in SECURITY_DOC


# ---------------------------------------------------------------- 11. hashed requirements
def pinned() -> dict[str, tuple[str, list[str]]]:
    """requirements/lambda.txt: name -> (version, hashes)."""
    text = (ROOT / "requirements" / "lambda.txt").read_text(encoding="utf-8")
    found: dict[str, tuple[str, list[str]]] = {}
    for block in re.split(r"\n(?=\S)", text):
        first = block.split("\\", 1)[0].strip()
        if not first or first.startswith("#"):
            continue
        name, version = first.split("==")
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        found[name.lower()] = (version, hashes)
    return found


def test_lambda_requirements_are_pinned_with_hashes_and_installed_requiring_them() -> None:
    locked = pinned()
    assert len(locked) > 10
    for name, (version, hashes) in locked.items():
        assert re.fullmatch(r"[0-9][0-9A-Za-z.]*", version), name
        assert hashes, f"{name} has no hash"
    ranges = (ROOT / "requirements" / "lambda.in").read_text(encoding="utf-8")
    for line in ranges.splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            version, _ = locked[req.name.lower()]
            assert req.specifier.contains(version), (req, version)
    pip = re.search(r"^LAMBDA_PIP := (.*?)(?<!\\)\n", MAKEFILE, re.S | re.M)
    assert pip is not None
    assert "--require-hashes" in pip[1] and "-r requirements/lambda.txt" in pip[1]
    assert "--python-version 3.13" in pip[1] and "x86_64-manylinux2014" in pip[1]


# ---------------------------------------------------------------- 12. model ids
MODEL_PARAMS = ("ExtractModelId", "EnrichModelId", "PileModelId")


@pytest.mark.parametrize("param", MODEL_PARAMS)
def test_model_defaults_are_current_models_through_a_cross_region_profile(param: str) -> None:
    model = PARAMS[param]["Default"]
    geography, provider, name = model.split(".", 2)
    assert geography == "us" and provider in ("anthropic", "amazon"), model
    released = re.search(r"-(20\d{2})\d{4}-", name)
    assert released is None or int(released[1]) >= 2025, f"{model} is an old model"
    field = {"ExtractModelId": "extract", "EnrichModelId": "enrich", "PileModelId": "pile"}[param]
    assert getattr(Settings(), f"{field}_model_id") == model  # the code runs what IAM grants


@pytest.mark.parametrize("use", ["Extract", "Enrich"])
def test_the_default_model_is_granted_through_its_profile_in_every_region(use: str) -> None:
    resolve = Resolver(TEMPLATE, **{f"{use}Engine": "bedrock"})
    model = PARAMS[f"{use}ModelId"]["Default"]
    assert resolve.condition(f"{use}BedrockProfileId")
    grants = [
        s["Resource"]
        for s in resolve.statements(functions()["OrchestratorFunction"])
        if "bedrock:InvokeModel" in actions(s)
    ]
    assert grants == [
        [
            f"arn:aws:bedrock:us-east-1:123456789012:inference-profile/{model}",
            f"arn:aws:bedrock:*::foundation-model/{model.split('.', 1)[1]}",
        ]
    ]


def batch_role_invokes(**params: str) -> list[Any]:
    resolve = Resolver(TEMPLATE, **params)
    (policy,) = RESOURCES["BatchInferenceRole"]["Properties"]["Policies"]
    statements = resolve(policy["PolicyDocument"]["Statement"])
    return [
        s["Resource"]
        for s in statements
        if s is not NO_VALUE and "bedrock:InvokeModel" in actions(s)
    ]


def test_a_batch_job_through_a_profile_may_invoke_it_and_its_model_in_every_region() -> None:
    model = PARAMS["PileModelId"]["Default"]
    assert batch_role_invokes() == [
        [
            f"arn:aws:bedrock:us-east-1:123456789012:inference-profile/{model}",
            f"arn:aws:bedrock:*::foundation-model/{model.split('.', 1)[1]}",
        ]
    ]
    # A foundation-model id needs no invoke grant on the role (Bedrock's own access suffices).
    assert batch_role_invokes(PileModelId="anthropic.claude-haiku-4-5-20251001-v1:0") == []


# ---------------------------------------------------------------- 13. checkov
def test_checkov_runs_in_lint_and_every_accepted_finding_has_a_reason() -> None:
    baseline = json.loads((ROOT / ".checkov.baseline").read_text(encoding="utf-8"))
    reasons: dict[str, str] = baseline["reasons"]
    listed = set()
    for entry in baseline["failed_checks"]:
        for finding in entry["findings"]:
            kind, logical = finding["resource"].split(".", 1)
            assert RESOURCES[logical]["Type"] == kind, f"stale baseline entry {finding}"
            for check in finding["check_ids"]:
                assert len(reasons.get(check, "")) > 40, f"{check} has no reason"
                listed.add(check)
    assert listed == set(reasons), "a reason for a check the baseline no longer lists"
    lint = MAKEFILE.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert "checkov -f template.yaml" in lint and "--baseline .checkov.baseline" in lint
    assert "CHECKOV_VENV" in lint  # its own environment: checkov pins clash with ours
