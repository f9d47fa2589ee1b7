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
