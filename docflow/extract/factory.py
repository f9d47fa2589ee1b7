"""Builds the configured field engine from settings (DOCFLOW_EXTRACT_ENGINE)."""

from __future__ import annotations

from docflow.extract.base import FieldEngine
from docflow.extract.engines.bedrock import BedrockEngine
from docflow.extract.engines.textract_document import TextractDocumentEngine
from docflow.extract.engines.textract_expense import TextractExpenseEngine
from docflow.extract.rules_engine.engine import RulesEngine
from docflow.readers.limiter import LeaseSemaphore
from docflow.readers.throttling import ThrottlePolicy
from docflow.settings import Settings


def build_engine(settings: Settings) -> FieldEngine:
    policy = ThrottlePolicy.from_settings(settings)
    if settings.extract_engine in ("textract-expense", "textract"):
        semaphore = None
        if settings.reader_concurrency_cap:
            # The same slot pool as the OCR reader: both spend one account's Textract rate.
            semaphore = LeaseSemaphore(
                settings.reader_lease_table, "textract", settings.reader_concurrency_cap
            )
        if settings.extract_engine == "textract":
            return TextractDocumentEngine(policy, semaphore)
        return TextractExpenseEngine(policy, semaphore)
    if settings.extract_engine == "bedrock":
        return BedrockEngine(settings.extract_model_id, policy)
    return RulesEngine()
