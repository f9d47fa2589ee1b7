"""The orchestrator's typed step results keep their checkpoints' JSON exactly as the dicts made
it (recorded executions replay against the new code), and come back typed on replay."""

from __future__ import annotations

from aws_durable_execution_sdk_python.serdes import SerDesContext

from docflow.pipeline.results import Split
from docflow.pipeline.split import SPLIT_STEP

CONTEXT = SerDesContext("op-1", "arn:aws:lambda:us-east-1:1:function:f:live/durable-execution/x/y")

# The split step's checkpoints as the SDK's default encoding wrote them for today's dicts.
SPLIT_OK = (
    '{"t":"m","v":{"ok":{"t":"b","v":true},"pages":{"t":"i","v":12},"bytes":{"t":"i","v":3456},'
    '"batches":{"t":"l","v":[{"t":"l","v":[{"t":"i","v":1},{"t":"i","v":3}]},{"t":"l","v":'
    '[{"t":"i","v":4},{"t":"i","v":6}]},{"t":"l","v":[{"t":"i","v":7},{"t":"i","v":9}]},'
    '{"t":"l","v":[{"t":"i","v":10},{"t":"i","v":12}]}]}}}'
)
SPLIT_REFUSED = (
    '{"t":"m","v":{"ok":{"t":"b","v":false},"reason":{"t":"s","v":"not-a-pdf"},'
    '"message":{"t":"s","v":"the file is not a PDF"}}}'
)


def test_the_split_checkpoint_keeps_its_shape() -> None:
    serdes = SPLIT_STEP.serdes
    assert serdes is not None
    ok = Split(True, 12, 3456, ((1, 3), (4, 6), (7, 9), (10, 12)))
    refused = Split.refused("not-a-pdf", "the file is not a PDF")
    assert serdes.serialize(ok, CONTEXT) == SPLIT_OK
    assert serdes.serialize(refused, CONTEXT) == SPLIT_REFUSED
    # A recorded checkpoint reads back as the record.
    assert serdes.deserialize(SPLIT_OK, CONTEXT) == ok
    assert serdes.deserialize(SPLIT_REFUSED, CONTEXT) == refused
    assert ok.plan == [[1, 3], [4, 6], [7, 9], [10, 12]]


# A routed stage as the steps checkpoint it: `Stage.to_dict()`, then why it was routed.
FINANCE = {"name": "finance", "reviewers": ["ap@example.com"], "timeoutSeconds": 3600}
FINANCE |= {"heartbeatSeconds": 0, "because": "type"}
FIELDS = {**FINANCE, "name": "fields", "because": "fields"}

# The classify step's dict as it returned it: the classifier's keys, then the reading's.
CLASSIFIED = {
    "docType": "invoice",
    "confidence": 0.92,
    "sensitive": {"iban": 1},
    "lowConfidence": False,
    "stages": [FINANCE],
    "extract": True,
    "privacyHeld": {"stage": {"name": "privacy"}, "ibans": 1},
    "pages": 3,
    "chars": 2100,
    "engines": {"text": 2, "tesseract": 1},
    "ocrConfidence": 0.81,
}


def test_the_classify_checkpoint_keeps_the_dicts_shape() -> None:
    from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES

    from docflow.pipeline.classify import CLASSIFY_STEP
    from docflow.pipeline.results import Classification

    serdes = CLASSIFY_STEP.serdes
    assert serdes is not None
    for raw in (CLASSIFIED, {k: v for k, v in CLASSIFIED.items() if k != "privacyHeld"}):
        recorded = EXTENDED_TYPES_SERDES.serialize(raw, CONTEXT)  # what the dict checkpointed
        found = Classification.from_json(raw)
        assert serdes.serialize(found, CONTEXT) == recorded
        assert serdes.deserialize(recorded, CONTEXT) == found
    found = Classification.from_json(CLASSIFIED)
    assert found.reading == {"pages": 3, "chars": 2100, "engines": CLASSIFIED["engines"]} | {
        "ocrConfidence": 0.81
    }
    assert found.document().to_json() == {
        "docType": "invoice",
        "confidence": 0.92,
        "sensitive": {"iban": 1},
        "lowConfidence": False,
        "pages": 3,
        "engines": {"text": 2, "tesseract": 1},
    }


# The extract step's dicts as it returned them: a type without fields, and one with fields and
# what the supplier registry added (after the step's own keys).
EXTRACTED_NONE = {"fields": {}, "checks": [], "stages": []}
EXTRACTED = {
    "fields": {"total_amount": {"value": "240.00", "confidence": 0.9, "page": 1}},
    "checks": [{"field": "total_amount", "code": "low-confidence", "message": "0.9"}],
    "stages": [FIELDS],
    "key": "artifacts/doc/v1/fields.json",
    "usage": {"analyzeExpensePages": 1},
    "supplier": {"supplierId": "northwind", "certain": True},
    "ibans": [{"value": "GB82WEST12345698765432", "valid": True, "owner": "issuer"}],
}


def test_the_other_step_results_keep_their_dicts_checkpoints() -> None:
    from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES

    from docflow.pipeline.extract import EXTRACT_STEP
    from docflow.pipeline.finalize import WRITE_STEP
    from docflow.pipeline.results import Extracted, Route, Superseding, Written
    from docflow.pipeline.supersede import SUPERSEDE_STEP
    from docflow.pipeline.triage import ROUTE_STEP

    cases = [
        (SUPERSEDE_STEP, Superseding, {"latest": True, "ended": 2}),
        (SUPERSEDE_STEP, Superseding, {"latest": False, "ended": 0}),
        (WRITE_STEP, Written, {"key": "results/doc/v1.json", "cost": {"usd": 0.0001}}),
        (WRITE_STEP, Written, {"key": "archive/doc/v1.json", "cost": None}),
        (ROUTE_STEP, Route, {"stages": [FINANCE], "extract": True}),
        (ROUTE_STEP, Route, {"stages": [], "extract": False}),
        (EXTRACT_STEP, Extracted, EXTRACTED_NONE),
        (EXTRACT_STEP, Extracted, EXTRACTED),
    ]
    for config, record, raw in cases:
        serdes = config.serdes
        assert serdes is not None
        recorded = EXTENDED_TYPES_SERDES.serialize(raw, CONTEXT)
        found = record.from_json(raw)
        assert serdes.serialize(found, CONTEXT) == recorded, raw
        assert serdes.deserialize(recorded, CONTEXT) == found
    extracted = Extracted.from_json(EXTRACTED)
    assert extracted.usage == {"analyzeExpensePages": 1} and extracted.ibans[0]["owner"] == "issuer"
    assert set(extracted.shown) == {"supplier", "ibans"}
    assert Extracted.from_json(EXTRACTED_NONE).usage is None


def _recorded(prefix: str) -> list[str]:
    """Every recorded checkpoint of the steps whose name starts with `prefix`."""
    import json

    from tests.support.replay import all_histories

    return [
        op["StepDetails"]["Result"]
        for path in all_histories()
        for op in json.loads(path.read_text())["operations"]
        if str(op.get("Name", "")).startswith(prefix) and "Result" in op.get("StepDetails", {})
    ]


def test_the_enrich_plan_and_the_admission_keep_their_recorded_checkpoints() -> None:
    from docflow.pipeline.enrich_plan import FROM_RULES, EnrichPlan
    from docflow.pipeline.enrich_steps import ADMIT_STEP, PLAN_STEP

    plans, admissions = _recorded("enrich"), _recorded("enrich admit")
    assert plans and admissions
    for config, recorded in [(PLAN_STEP, r) for r in plans if '"engine"' in r] + [
        (ADMIT_STEP, r) for r in admissions
    ]:
        assert config.serdes is not None
        found = config.serdes.deserialize(recorded, CONTEXT)
        assert config.serdes.serialize(found, CONTEXT) == recorded
    # A plan made before plans carried the risk stage reads the rules when it ends.
    old = EnrichPlan.from_json({"engine": "bedrock", "budget": 9, "requestKey": "k"})
    assert old.risk == FROM_RULES and "riskStage" not in old.to_json()
    pile = {"engine": "rules", "budget": 0, "riskStage": None, "onDemandReason": "x"}
    pile |= {"batchKey": "b", "pileTimeoutS": 60, "pile": None}
    assert list(EnrichPlan.from_json(pile).to_json().items()) == list(pile.items())
    answered = {"ok": True, "shown": {"risk": {"level": "high"}}, "stages": [FINANCE], "usage": {}}
    assert EnrichPlan.from_json(answered).to_json() == answered


def test_an_enrich_outcome_keeps_the_steps_dicts() -> None:
    from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES

    from docflow.pipeline.enrich_plan import EnrichOutcome
    from docflow.pipeline.enrich_steps import OUTCOME_STEP

    serdes = OUTCOME_STEP.serdes
    assert serdes is not None
    last = {"ok": False, "shown": {"enrichment": {"status": "incomplete"}}, "stages": [FINANCE]}
    again = {"ok": False, "reason": "invalid-answer", "problems": ["no title"]}
    for raw in ({**last, "usage": {"bedrockCalls": 1}}, {**again, "usage": {}}):
        recorded = EXTENDED_TYPES_SERDES.serialize(raw, CONTEXT)
        found = EnrichOutcome.from_json(raw)
        assert serdes.serialize(found, CONTEXT) == recorded
        assert serdes.deserialize(recorded, CONTEXT) == found
    assert EnrichOutcome.from_json({**again, "usage": {}}).shown is None
    for recorded in _recorded("enrich model") + _recorded("enrich batch result"):
        assert serdes.serialize(serdes.deserialize(recorded, CONTEXT), CONTEXT) == recorded


def test_a_batch_summary_keeps_the_batch_steps_dict() -> None:
    from docflow.pipeline.results import BatchSummary

    raw = {"pages": 3, "chars": 120, "engines": {"textlayer": 2, "tesseract": 1}}
    raw |= {"ocrPages": 1, "ocrConfidenceSum": 88.5, "features": {"keywords": {"x": 1}}}
    summary = BatchSummary.from_json(raw)
    assert list(summary.to_json().items()) == list(raw.items())
    assert summary.engines["tesseract"] == 1 and summary.ocr_confidence_sum == 88.5
