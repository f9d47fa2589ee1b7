"""Cost per document: the run's own counts, priced from docflow.cost.PRICES."""

from __future__ import annotations

import json

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.cost import PRICES, Usage, estimate, format_cost
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from docflow.storage import result_key
from orchestrator.app import handler
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack, result_json


def test_estimate_prices_each_part_from_the_one_price_list() -> None:
    usage = Usage(
        operations=12,
        retries=1,
        step_ms=1500,
        pages={"textract": 4, "textlayer": 6},
        memory_mb=2048,
        extra={"bedrockCalls": 1, "bedrockInputTokens": 1000, "bedrockOutputTokens": 200},
    )
    cost = estimate(usage, "invoice")
    assert cost["textractCalls"] == 4
    assert cost["usdBy"]["durable"] == pytest.approx(13 * 8.0 / 1e6, abs=1e-8)
    assert cost["usdBy"]["lambda"] == pytest.approx(
        2 * 1.5 * PRICES["lambda_usd_per_gb_second_x86"], abs=1e-8
    )
    assert cost["usdBy"]["textract"] == pytest.approx(4 * 0.0015, abs=1e-8)
    assert cost["usdBy"]["bedrock"] == pytest.approx(1000 * 0.25 / 1e6 + 200 * 1.25 / 1e6, abs=1e-8)
    assert cost["usd"] == pytest.approx(sum(cost["usdBy"].values()), abs=1e-7)
    assert "4 Textract pages" in format_cost(cost)
    with pytest.raises(ValueError, match="unknown usage"):
        estimate(Usage(1, 0, 0, {}, extra={"gpuHours": 1}))


def test_a_finalized_run_counts_its_own_operations(stack: Stack) -> None:
    doc = stack.upload("in/cost.pdf", pdfs.make_pdf([pdfs.INVOICE, ("scan", "A scanned page")]))
    with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
        result = runner.run(input=stack.event(doc), execution_timeout=120)
    assert result_json(result)["status"] == "finalized"
    record = json.loads(
        aws.client("s3")
        .get_object(Bucket=load_settings().artifact_bucket, Key=result_key(doc))["Body"]
        .read()
    )
    cost = record["cost"]
    # Exactly the operations the runner recorded for the whole run.
    assert cost["operations"] == len(result.get_all_operations())
    assert cost["pages"] == {"tesseract": 1, "textlayer": 1}
    assert cost["retries"] == 0 and cost["stepMs"] > 0 and cost["usd"] > 0
    assert cost["docType"] == "invoice"
    state = ReadModel(load_settings().table_name).show(doc.document_id)["state"]
    assert state["cost"] == cost


def test_a_cost_line_names_the_engine_its_figure_is_for() -> None:
    """Issue 44 item 11: a pile document's batch Bedrock price sat beside a `run` document's
    free local `rules` engine, so "half the price" looked dearer. Each figure says its engine,
    and a batch figure comes with the same tokens' on-demand price."""
    from docflow.cli.piles import add_cost, cost_sentence
    from docflow.cost import cost_line

    tokens = {
        "bedrockBatchCalls": 1,
        "bedrockBatchInputTokens": 4000,
        "bedrockBatchOutputTokens": 400,
    }
    batch = estimate(Usage(operations=12, retries=0, step_ms=0, pages={}, extra=tokens))
    local = estimate(Usage(operations=12, retries=0, step_ms=0, pages={}))
    on_demand = (4000 * 0.25 + 400 * 1.25) / 1e6  # twice the batch price
    assert batch["usdBy"]["bedrock"] == pytest.approx(on_demand / 2)

    batch_line = cost_line({"cost": batch, "enrichment": {"mode": "batch", "engine": "bedrock"}})
    assert batch_line is not None
    assert f"enriched by Bedrock batch inference: ${on_demand / 2:.6f} at the batch price" in (
        batch_line
    )
    assert f"${on_demand:.6f} on demand" in batch_line
    local_line = cost_line({"cost": local, "enrichment": {"mode": "on-demand", "engine": "rules"}})
    assert local_line is not None and "enriched by the local rules engine: no model, free" in (
        local_line
    )

    costs: dict = {}
    for _ in range(2):
        add_cost(costs, {"mode": "batch", "engine": "bedrock"}, batch)
    add_cost(costs, {"mode": "on-demand", "engine": "rules"}, local)
    pile = cost_sentence(costs[("batch", "bedrock")])
    assert "2 documents" in pile and "enriched by Bedrock batch inference" in pile
    assert f"the same tokens on demand through Bedrock ${2 * on_demand:.6f}" in pile
    assert "by the local rules engine (no model: free)" in cost_sentence(
        costs[("on-demand", "rules")]
    )
