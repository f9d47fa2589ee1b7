"""A routed stage checkpoints exactly the dict the steps built before it was a type: every stage
in the recorded histories reads back and writes the same JSON, key order included."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES, SerDesContext

from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from tests.support.replay import all_histories

CONTEXT = SerDesContext("op-1", "arn:aws:lambda:us-east-1:1:function:f:live/durable-execution/x/y")


def _stages(value: Any) -> list[dict[str, Any]]:
    """Every stage dict in a history's checkpoints (results are JSON inside JSON)."""
    if isinstance(value, str) and value[:1] in "[{":
        try:  # a step's result in the SDK's typed envelope, or plain JSON (the map's)
            return _stages(EXTENDED_TYPES_SERDES.deserialize(value, CONTEXT))
        except Exception:
            try:
                return _stages(json.loads(value))
            except ValueError:
                return []
    if isinstance(value, list):
        return [s for v in value for s in _stages(v)]
    if not isinstance(value, dict):
        return []
    own = [value] if {"name", "timeoutSeconds", "because"} <= set(value) else []
    return own + [s for v in value.values() for s in _stages(v)]


def test_every_recorded_stage_reads_back_to_the_same_json() -> None:
    seen = [s for path in all_histories() for s in _stages(json.loads(path.read_text()))]
    assert len(seen) >= 4 and any("choices" in s for s in seen)  # triage's choices among them
    for raw in seen:
        assert json.dumps(RoutedStage.from_json(raw).to_json()) == json.dumps(raw)
        # and the SDK's envelope of it, as a step's checkpoint carries it
        again = EXTENDED_TYPES_SERDES.serialize(RoutedStage.from_json(raw).to_json(), CONTEXT)
        assert again == EXTENDED_TYPES_SERDES.serialize(raw, CONTEXT)


def test_each_kind_of_stage_keeps_its_keys_in_the_order_the_steps_wrote_them() -> None:
    legal = Stage("legal", ("a@x",), 60, 10, quorum=2, notify="digest", digest=("a@x",))
    old = {**legal.to_dict(), "because": "type"}
    triage = {**old, "choices": ["invoice", "contract"], "routes": {"types": {}, "extract": []}}
    split = {**legal.to_dict(), "because": "split-unsure", "splitPages": 7}
    for raw in (old, triage, split, legal.to_dict()):
        routed = RoutedStage.from_json(raw)
        assert list(routed.to_json().items()) == list(raw.items())
    assert RoutedStage.from_json(triage).choices == ("invoice", "contract")
    assert RoutedStage.from_json(split).split_pages == 7
    assert RoutedStage.from_json(legal.to_dict()).because is None
    offered = RoutedStage.of(legal, "type").offering(["invoice"], {"types": {}})
    assert offered.to_json() == {**old, "choices": ["invoice"], "routes": {"types": {}}}
