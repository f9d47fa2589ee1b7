"""Where the signing key ring comes from: Secrets Manager, SSM, or (local only) the environment.

Powertools' parameters utility fetches and caches it (5 minutes), so a rotation is picked up
without a deploy and a warm function does not call the secret store per request.
"""

from __future__ import annotations

import json
import os
from typing import Protocol

from aws_lambda_powertools.utilities import parameters

from docflow import aws
from docflow.review.access.signing import KeyRing
from docflow.settings import Settings

CACHE_SECONDS = 300


class KeySource(Protocol):
    def ring(self) -> KeyRing: ...


class SecretsManagerKeys:
    def __init__(self, secret_id: str) -> None:
        self.secret_id = secret_id
        self._provider = parameters.SecretsProvider(boto3_client=aws.client("secretsmanager"))

    def ring(self) -> KeyRing:
        raw = self._provider.get(self.secret_id, max_age=CACHE_SECONDS)
        return KeyRing.from_json(str(raw))


class SsmKeys:
    def __init__(self, name: str) -> None:
        self.name = name
        self._provider = parameters.SSMProvider(boto3_client=aws.client("ssm"))

    def ring(self) -> KeyRing:
        raw = self._provider.get(self.name, decrypt=True, max_age=CACHE_SECONDS)
        return KeyRing.from_json(str(raw))


class EnvKeys:
    """DOCFLOW_SIGNING_KEYS holds the key ring JSON. For the local stack and tests only."""

    def ring(self) -> KeyRing:
        raw = os.environ.get("DOCFLOW_SIGNING_KEYS", "")
        if not raw:
            raise RuntimeError("DOCFLOW_SIGNING_KEYS is not set")
        return KeyRing.from_json(raw)


class IntegrationSecrets:
    """Each machine integration's own secret (`{"service:<name>": "<secret>"}`), fetched and
    cached as the key ring is: one leaked integration secret signs for that integration only,
    and no reviewer's key signs a machine request."""

    def __init__(self, settings: Settings) -> None:
        self.source, self.secret_id = settings.signing_key_source, settings.integration_secret_id
        self._provider: parameters.BaseProvider | None = None

    def secret_for(self, integration: str) -> bytes | None:
        value = self._all().get(integration)
        return value.encode("utf-8") if isinstance(value, str) and len(value) >= 32 else None

    def _all(self) -> dict[str, object]:
        if self.source == "env" or not self.secret_id:
            # The local stack and tests (the template always names the secret); none at all:
            # every machine request is refused.
            raw: object = os.environ.get("DOCFLOW_INTEGRATION_SECRETS", "") or "{}"
        elif self.source == "ssm":
            self._provider = self._provider or parameters.SSMProvider(aws.client("ssm"))
            raw = self._provider.get(self.secret_id, decrypt=True, max_age=CACHE_SECONDS)
        else:
            self._provider = self._provider or parameters.SecretsProvider(
                boto3_client=aws.client("secretsmanager")
            )
            raw = self._provider.get(self.secret_id, max_age=CACHE_SECONDS)
        doc = json.loads(str(raw))
        return doc if isinstance(doc, dict) else {}


def build_key_source(settings: Settings) -> KeySource:
    if settings.signing_key_source == "env":
        return EnvKeys()
    if not settings.signing_secret_id:
        raise RuntimeError("DOCFLOW_SIGNING_SECRET_ID is required for the signing key")
    if settings.signing_key_source == "ssm":
        return SsmKeys(settings.signing_secret_id)
    return SecretsManagerKeys(settings.signing_secret_id)
