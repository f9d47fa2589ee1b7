"""The DynamoDB helpers the stores share: a consistent get, put-if-absent, and a conditional
update that hands back the stored item when its condition fails (on moto's DynamoDB)."""

from __future__ import annotations

import pytest

from docflow.dynamo import ConditionFailed, Table
from docflow.settings import load_settings
from tests.support.aws import Stack


def test_a_failed_condition_carries_the_item_as_stored(stack: Stack) -> None:
    table = Table(load_settings().links_table)
    assert table.put_new({"pk": "T#1", "n": 1, "ratio": 0.5})
    assert not table.put_new({"pk": "T#1", "n": 9})  # there already: nothing written
    assert table.get({"pk": "T#1"}) == {"pk": "T#1", "n": 1, "ratio": 0.5}

    after = table.update(
        {"pk": "T#1"}, "SET n = n + :one", condition="n < :two", values={":one": 1, ":two": 2}
    )
    assert after["n"] == 2
    with pytest.raises(ConditionFailed) as failed:
        table.update(
            {"pk": "T#1"}, "SET n = n + :one", condition="n < :two", values={":one": 1, ":two": 2}
        )
    assert failed.value.item == {"pk": "T#1", "n": 2, "ratio": 0.5}
    with pytest.raises(ConditionFailed) as missing:
        table.update(
            {"pk": "T#none"}, "SET n = :one", condition="attribute_exists(pk)", values={":one": 1}
        )
    assert missing.value.item == {} and table.get({"pk": "T#none"}) is None
