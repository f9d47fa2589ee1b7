"""The e-invoice rules function: runs the EN 16931 schematron (Saxon) on the XML the
orchestrator sends, and answers the failed assertions. Its own function because Saxon's
113 MB do not fit beside the pipeline's dependencies in one Lambda package (docs/einvoice.md);
it reads and writes nothing but its request and answer."""

from __future__ import annotations

from typing import Any

from docflow.einvoice.rules_function import RulesAnswer, RulesRequest, rules_answer


def handler(event: RulesRequest, context: Any) -> RulesAnswer:
    return rules_answer(event)
