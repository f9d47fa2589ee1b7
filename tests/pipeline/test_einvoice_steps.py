"""The e-invoice's step results: the split's `einvoice` only when set (an ordinary document's
split checkpoint stays byte for byte), the read e-invoice step's small object in the contract's
key order (docs/einvoice.md), and an EN 16931 type onto the rules file's types."""

from __future__ import annotations

import json

from aws_durable_execution_sdk_python.serdes import SerDesContext

from docflow.classify import RulesClassifier
from docflow.pipeline.einvoice_read import EINVOICE_STEP, EInvoiceRead, rules_type
from docflow.pipeline.results import Split
from docflow.pipeline.split import SPLIT_STEP
from docflow.rules.model import load_rules

CONTEXT = SerDesContext("op-1", "arn:aws:lambda:us-east-1:1:function:f:live/durable-execution/x/y")
# An ordinary document's split checkpoint as the SDK's default encoding wrote it (the recorded
# shape tests/pipeline/test_results.py keeps).
SPLIT_OK = (
    '{"t":"m","v":{"ok":{"t":"b","v":true},"pages":{"t":"i","v":12},"bytes":{"t":"i","v":3456},'
    '"batches":{"t":"l","v":[{"t":"l","v":[{"t":"i","v":1},{"t":"i","v":3}]},{"t":"l","v":'
    '[{"t":"i","v":4},{"t":"i","v":6}]},{"t":"l","v":[{"t":"i","v":7},{"t":"i","v":9}]},'
    '{"t":"l","v":[{"t":"i","v":10},{"t":"i","v":12}]}]}}}'
)
RULE_TYPES = ("invoice", "credit-note", "contract", "report", "purchase-order")


def test_an_einvoice_split_says_so_and_an_ordinary_one_does_not() -> None:
    serdes = SPLIT_STEP.serdes
    assert serdes is not None
    ordinary = Split(True, 12, 3456, ((1, 3), (4, 6), (7, 9), (10, 12)))
    assert serdes.serialize(ordinary, CONTEXT) == SPLIT_OK
    xml = Split(True, 1, 4935, ((1, 1),), einvoice="xml")
    encoded = serdes.serialize(xml, CONTEXT)
    assert encoded.endswith(',"einvoice":{"t":"s","v":"xml"}}}')
    assert serdes.deserialize(encoded, CONTEXT) == xml
    assert xml.to_json() == {"ok": True, "pages": 1, "bytes": 4935, "batches": [[1, 1]]} | {
        "einvoice": "xml"
    }


def test_the_read_step_carries_the_contracts_object() -> None:
    read = EInvoiceRead(
        key="docs/d-1/v-1/einvoice.json",
        source="xml",
        syntax="cii",
        customization="urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0",
        type_code="380",
        lines=3,
        line_total="1450.00",
        valid=False,
        fatal=("BR-CO-15",),
        warnings=2,
        skipped=(),
    )
    keys = ["key", "source", "syntax", "customization", "typeCode", "lines", "lineTotal"]
    assert list(read.to_json()) == [*keys, "valid", "fatal", "warnings", "skipped"]
    assert read.to_json()["fatal"] == ["BR-CO-15"]
    serdes = EINVOICE_STEP.serdes
    assert serdes is not None
    assert serdes.deserialize(serdes.serialize(read, CONTEXT), CONTEXT) == read
    assert json.dumps(read.to_json())  # JSON-native: the read model and the payload take it
    assert read.document_type == "invoice"


def test_a_type_code_maps_onto_the_rules_types() -> None:
    assert rules_type("invoice", RULE_TYPES) == "invoice"
    assert rules_type("credit-note", RULE_TYPES) == "credit-note"
    assert rules_type("self-billed-credit-note", RULE_TYPES) == "credit-note"
    for stated in ("corrected-invoice", "self-billed-invoice", "debit-note", "partial-invoice"):
        assert rules_type(stated, RULE_TYPES) == "invoice"
    # Rules without the type: classify reads the words, as for any document.
    assert rules_type("credit-note", ("invoice", "contract")) is None
    assert rules_type("invoice", ("contract",)) is None


def test_a_stated_type_is_certain_and_keeps_the_detectors_stages() -> None:
    rules = load_rules(None, 3600)
    classifier = RulesClassifier(rules)
    # Words that read as a contract, an IBAN, and an OCR confidence that would be low.
    features = {"types": {"contract": 5}, "sensitive": {"us_ssn": 1}}
    guessed = classifier.classify(features, 10.0)
    assert guessed["docType"] == "contract" and guessed["lowConfidence"]
    stated = classifier.classify(features, 10.0, forced="credit-note")
    assert (stated["docType"], stated["confidence"], stated["lowConfidence"]) == (
        "credit-note",
        1.0,
        False,
    )
    stages = {s["name"]: s["because"] for s in stated["stages"]}
    assert rules.triage_stage not in stages and stages.get(rules.sensitive_stage) == "sensitive"
    assert stated["extract"] is True
