"""The generative pass: a structured summary and a risk level with reasons, per document.

`schema` (the enrichment's JSON schema and its validation), `request` (the Converse request
for on-demand calls and the prompted-JSON record for batch inference), one interface
(`base.Enricher`) with two engines (`rules`, local and deterministic; `bedrock`, Converse with
a forced tool), and `budget` (a tokens-per-minute budget shared by every execution, in
DynamoDB). May import docflow.extract, docflow.classify, docflow.readers and docflow.aws;
never docflow.pipeline.
"""

from docflow.enrich.base import EnrichAnswer, Enricher, PageText
from docflow.enrich.schema import validate_enrichment

__all__ = ["EnrichAnswer", "Enricher", "PageText", "validate_enrichment"]
