"""moto's partition Query, made to read only the asked partition (docflow.local.fidelity.
moto_query), answers as moto's own Scan does: the same items in sort-key order, both ways,
paged by Limit, with key and filter conditions and their ScannedCount."""

from __future__ import annotations

from typing import Any

from moto.dynamodb.models.table import Table

from docflow import aws
from docflow.local.fidelity.moto_query import _PATCHED
from tests.support.aws import Stack

TABLE = "query-probe"


def fill() -> None:
    ddb = aws.client("dynamodb")
    ddb.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
    )
    for n in range(60):  # written out of order, over three partitions
        m = (n * 37) % 60
        item = {"pk": {"S": f"P{m % 3}"}, "sk": {"S": f"{m:03d}"}, "odd": {"BOOL": m % 2 == 1}}
        ddb.put_item(TableName=TABLE, Item=item)


def scanned(partition: str, keep: Any = lambda item: True) -> list[str]:
    items = aws.client("dynamodb").scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return sorted(i["sk"]["S"] for i in items if i["pk"]["S"] == partition and keep(i))


def queried(partition: str, limit: int, **extra: Any) -> tuple[list[str], list[int]]:
    """Every page of a Query: the sort keys in the order given, and each page's ScannedCount."""
    ddb = aws.client("dynamodb")
    values = {":p": {"S": partition}, **extra.pop("values", {})}
    args = {
        "TableName": TABLE,
        "KeyConditionExpression": "pk = :p" + extra.pop("range", ""),
        "ExpressionAttributeValues": values,
        "Limit": limit,
        "ConsistentRead": True,
        **extra,
    }
    keys, counts = [], []
    while True:
        answer = ddb.query(**args)
        keys += [i["sk"]["S"] for i in answer["Items"]]
        counts.append(answer["ScannedCount"])
        if "LastEvaluatedKey" not in answer:
            return keys, counts
        args["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def test_a_partition_query_answers_as_a_scan_of_that_partition(stack: Stack) -> None:
    assert getattr(Table.query, _PATCHED, False)  # the sandbox made moto read one partition
    fill()
    for partition in ("P0", "P1", "P2"):
        want = scanned(partition)
        assert len(want) == 20
        keys, counts = queried(partition, 7)
        assert keys == want and counts == [7, 7, 6]
        assert queried(partition, 7, ScanIndexForward=False)[0] == want[::-1]
    later = queried("P1", 4, range=" AND sk > :from", values={":from": {"S": "030"}})[0]
    assert later == [k for k in scanned("P1") if k > "030"]
    odd, counts = queried("P2", 5, FilterExpression="odd = :yes", values={":yes": {"BOOL": True}})
    assert odd == scanned("P2", lambda i: i["odd"]["BOOL"]) and sum(counts) == 20
    assert queried("P9", 5) == ([], [0])
