"""The generative pass: a structured summary and a risk level with reasons, per document.

`schema` (the enrichment's JSON schema and its validation), `request` (the Converse request
for on-demand calls and the prompted-JSON record for batch inference), one interface
(`base.Enricher`) with two engines (`rules`, local and deterministic; `bedrock`, Converse with
a forced tool), and `budget` (a tokens-per-minute budget shared by every execution, in
DynamoDB). May import classify (detectors), extract (date parser, company suffixes), readers
(throttle policy), the read model's table helpers, settings, observability and the AWS
adapters; never the pipeline, the runtime or the local stack.
"""

from docflow.enrich.base import EnrichAnswer, Enricher, EnrichInput, PageText
from docflow.enrich.schema import validate_enrichment

__all__ = ["EnrichAnswer", "EnrichInput", "Enricher", "PageText", "validate_enrichment"]
