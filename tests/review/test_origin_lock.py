"""With CloudFront in front of the callback API (EnableCallbackCdn with CallbackOriginLock), only a
request carrying CloudFront's origin header is answered: one sent straight to the Function URL
(around CloudFront and its WAF) is refused before any route reads anything. The real handler,
the secret in moto's Secrets Manager."""

from __future__ import annotations

import json

import pytest

from docflow import aws
from docflow.settings import load_settings
from tests.support.aws import Stack
from tests.support.review_desk import call

SECRET = "s3cret-value-cloudfront-sends-0123456789abcdefgh"


@pytest.fixture
def locked(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> str:
    arn = aws.client("secretsmanager").create_secret(
        Name="docflow-callback-origin", SecretString=SECRET
    )["ARN"]
    monkeypatch.setenv("DOCFLOW_ORIGIN_SECRET_ID", arn)
    load_settings.cache_clear()
    return arn


def error_of(answer: dict) -> tuple[int, str]:
    return answer["statusCode"], json.loads(answer["body"])["error"]


def test_a_request_around_cloudfront_is_refused_before_any_route(locked: str) -> None:
    as_json = {"accept": "application/json"}
    for headers in ({}, {"x-docflow-origin": "guess"}, {"x-docflow-origin": SECRET[:-1]}):
        for method, path in (
            ("GET", "/inbox"),
            ("GET", "/review/any-token"),
            ("POST", "/review/t"),
        ):
            refused = call(method, path, **as_json, **headers)
            assert error_of(refused) == (403, "not-through-the-edge"), (method, path, headers)
            assert SECRET not in refused["body"]
    # Through CloudFront (its header, in any case): each route answers as it always did.
    assert error_of(call("GET", "/inbox", **as_json, **{"X-Docflow-Origin": SECRET})) == (
        403,
        "no-inbox",
    )
    through = call("GET", "/review/not-a-token", **as_json, **{"x-docflow-origin": SECRET})
    assert error_of(through)[1] != "not-through-the-edge"


def test_without_a_lock_every_request_reaches_its_route(stack: Stack) -> None:
    assert load_settings().origin_secret_id == ""  # the local stack, a stack without CloudFront
    assert error_of(call("GET", "/inbox", accept="application/json")) == (403, "no-inbox")
