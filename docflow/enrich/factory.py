"""Builds the configured enrichment engine from settings (DOCFLOW_ENRICH_ENGINE)."""

from __future__ import annotations

from docflow.enrich.base import Enricher
from docflow.enrich.bedrock import BedrockEnricher
from docflow.enrich.rules import RulesEnricher
from docflow.readers.throttling import ThrottlePolicy
from docflow.settings import Settings


def build_enricher(settings: Settings) -> Enricher:
    if settings.enrich_engine == "bedrock":
        return BedrockEnricher(settings.enrich_model_id, ThrottlePolicy.from_settings(settings))
    return RulesEnricher()
