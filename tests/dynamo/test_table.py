"""The DynamoDB helpers the stores share: a consistent get, put-if-absent, and a conditional
update that hands back the stored item when its condition fails (on moto's DynamoDB)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from docflow.dynamo import ConditionFailed, Table, to_ddb, transaction_condition_failed
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


def test_conditional_puts_and_deletes_carry_the_item_as_stored(stack: Stack) -> None:
    table = Table(load_settings().links_table)
    assert table.put({"pk": "T#2", "holder": "a"}) is None  # nothing was there
    assert table.put({"pk": "T#2", "holder": "a", "n": 1}) == {"pk": "T#2", "holder": "a"}
    with pytest.raises(ConditionFailed) as taken:
        table.put({"pk": "T#2", "holder": "b"}, condition="holder = :me", values={":me": "b"})
    assert taken.value.item == {"pk": "T#2", "holder": "a", "n": 1}
    with pytest.raises(ConditionFailed) as not_mine:
        table.delete({"pk": "T#2"}, condition="holder = :me", values={":me": "b"})
    assert not_mine.value.item["holder"] == "a" and table.get({"pk": "T#2"}) is not None
    table.delete({"pk": "T#2"}, condition="holder = :me", values={":me": "a"})
    assert table.get({"pk": "T#2"}) is None
    table.delete({"pk": "T#2"})  # nothing there: nothing to do


def test_a_cancelled_transaction_names_the_condition_that_failed(stack: Stack) -> None:
    table = Table(load_settings().links_table)
    table.put({"pk": "T#3"})
    write = [
        {"Put": {"TableName": table.name, "Item": to_ddb({"pk": "T#4"})}},
        {
            "ConditionCheck": {
                "TableName": table.name,
                "Key": to_ddb({"pk": "T#3"}),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        },
    ]
    with pytest.raises(ClientError) as cancelled:
        table.client.transact_write_items(TransactItems=write)
    assert transaction_condition_failed(cancelled.value, 1)
    assert not transaction_condition_failed(cancelled.value, 0)
    assert table.get({"pk": "T#4"}) is None
