"""The pool: documents of a pile waiting for a Bedrock batch inference job, in DynamoDB.

One item per waiting document, `record#<run id>`, holding the document, its version, the run
id (the batch record's `recordId`), the callback id its execution waits on, and the S3 key of
its batch model input. Its `listing` walks one way only, each move a conditional write:

    pending --claim--> claimed --job started--> sent --answered--> done
    pending --waited too long--> done (sent on-demand)

so no record is in two jobs and none is answered twice. One item per job, `job#<name>`,
holds the job's ARN, status, counts and the callback id the batcher waits on for the job's
state-change event (never a document's). `lease#pool-wait` names the one batcher waiting for
a small pool to fill. `counter#registered` numbers registrations: every
`pile_min_records`-th one starts a batcher named for it, so a filling pool starts one batcher
per fill, however often a submitter re-runs. The callback ids are not secrets that open
anything beyond completing that one wait, and nothing here is a link.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.ids import DocumentRef
from docflow.readmodel.table import from_ddb, put_new, to_ddb
from docflow.settings import Settings, load_settings

PENDING, CLAIMED, SENT, DONE = "pending", "claimed", "sent", "done"
JOB = "job"
INDEX = "by-listing"
COUNTER = "counter#registered"
WAIT_LEASE = "lease#pool-wait"
# Done records are kept a while for `docflow jobs` and audits, then expire.
DONE_TTL_S = 30 * 24 * 3600


def record_pk(run_id: str) -> str:
    return f"record#{run_id}"


def job_pk(job_name: str) -> str:
    return f"job#{job_name}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Registered:
    run_id: str
    seq: int
    new: bool


class Pool:
    """The pool table's reads and conditional writes; no business rules beyond the states."""

    def __init__(self, table: str | None = None) -> None:
        self.table = table or load_settings().pile_table

    @property
    def ddb(self) -> Any:
        return aws.client("dynamodb")

    # ------------------------------------------------------------------ records
    def register(self, doc: DocumentRef, callback_id: str, request_key: str) -> Registered:
        """Add the document's record once per run id; a second call returns the first's."""
        found = self.record(doc.run_id)
        if found is not None:
            return Registered(doc.run_id, int(found.get("seq", 0)), new=False)
        seq = int(
            self.ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": COUNTER}),
                UpdateExpression="ADD registered :one",
                ExpressionAttributeValues=to_ddb({":one": 1}),
                ReturnValues="UPDATED_NEW",
            )["Attributes"]["registered"]["N"]
        )
        item = {
            "pk": record_pk(doc.run_id),
            "kind": "record",
            "runId": doc.run_id,
            "documentId": doc.document_id,
            "version": doc.version,
            "key": doc.key,
            "callbackId": callback_id,
            "requestKey": request_key,
            "listing": PENDING,
            "listedAt": now_iso(),
            "registeredAt": now_iso(),
            "seq": seq,
        }
        if not put_new(self.ddb, self.table, item):
            # A concurrent re-run of the same submitter won; its number stands.
            found = self.record(doc.run_id) or {}
            return Registered(doc.run_id, int(found.get("seq", 0)), new=False)
        return Registered(doc.run_id, seq, new=True)

    def record(self, run_id: str) -> dict[str, Any] | None:
        answer = self.ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": record_pk(run_id)}), ConsistentRead=True
        )
        return from_ddb(answer["Item"]) if "Item" in answer else None

    def states(self, run_ids: list[str]) -> dict[str, str]:
        """run id -> its record's listing, read in batches of 100 (consistent reads)."""
        found: dict[str, str] = {}
        for start in range(0, len(run_ids), 100):
            keys = [to_ddb({"pk": record_pk(r)}) for r in run_ids[start : start + 100]]
            request: dict[str, Any] = {
                self.table: {
                    "Keys": keys,
                    "ConsistentRead": True,
                    "ProjectionExpression": "runId, listing",
                }
            }
            while request:
                answer = self.ddb.batch_get_item(RequestItems=request)
                for item in answer.get("Responses", {}).get(self.table, []):
                    plain = from_ddb(item)
                    found[str(plain["runId"])] = str(plain["listing"])
                request = answer.get("UnprocessedKeys") or {}
        return found

    def listed(self, listing: str, limit: int | None = None) -> Iterator[dict[str, Any]]:
        """Items in one listing, oldest first (the sparse index; never a scan)."""
        args: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": INDEX,
            "KeyConditionExpression": "listing = :l",
            "ExpressionAttributeValues": to_ddb({":l": listing}),
        }
        seen = 0
        while True:
            answer = self.ddb.query(**args)
            for item in answer.get("Items", []):
                yield from_ddb(item)
                seen += 1
                if limit is not None and seen >= limit:
                    return
            if "LastEvaluatedKey" not in answer:
                return
            args["ExclusiveStartKey"] = answer["LastEvaluatedKey"]

    def any_in(self, listing: str) -> bool:
        """Whether one listing holds anything: one item read from the index."""
        answer = self.ddb.query(
            TableName=self.table,
            IndexName=INDEX,
            KeyConditionExpression="listing = :l",
            ExpressionAttributeValues=to_ddb({":l": listing}),
            Limit=1,
            ProjectionExpression="pk",
        )
        return bool(answer.get("Items"))

    def count(self, listing: str) -> int:
        args: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": INDEX,
            "KeyConditionExpression": "listing = :l",
            "ExpressionAttributeValues": to_ddb({":l": listing}),
            "Select": "COUNT",
        }
        total = 0
        while True:
            answer = self.ddb.query(**args)
            total += int(answer.get("Count", 0))
            if "LastEvaluatedKey" not in answer:
                return total
            args["ExclusiveStartKey"] = answer["LastEvaluatedKey"]

    def move(
        self, run_id: str, before: str, after: str, job: str | None = None, **extra: Any
    ) -> bool:
        """One record from `before` to `after` (for `job`, when given); False if it was not
        in `before` (or not in that job): another batcher or an earlier attempt moved it."""
        sets = {"listing": after, "listedAt": now_iso(), **extra}
        if after == DONE:
            sets["expiresAt"] = int(datetime.now(UTC).timestamp()) + DONE_TTL_S
        names = {f"#a{i}": k for i, k in enumerate(sets)}
        values = {f":a{i}": v for i, v in enumerate(sets.values())}
        condition = "listing = :before"
        values[":before"] = before
        if job is not None and before != PENDING:
            condition += " AND jobName = :job"
            values[":job"] = job
        try:
            self.ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": record_pk(run_id)}),
                UpdateExpression="SET " + ", ".join(f"{n} = :{n[1:]}" for n in names),
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=to_ddb(values),
            )
        except ClientError as exc:
            if aws.error_code(exc) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def of_job(self, listing: str, job: str) -> list[dict[str, Any]]:
        return [r for r in self.listed(listing) if r.get("jobName") == job]

    def take_wait(self, holder: str, until_epoch: int) -> bool:
        """Become the one batcher that waits for a small pool to fill (until `until_epoch`);
        False while another holds that wait. Scheduled batchers that find it held do not wait
        too, so a slow pool never has a crowd of idle batchers."""
        now = int(datetime.now(UTC).timestamp())
        try:
            self.ddb.put_item(
                TableName=self.table,
                Item=to_ddb(
                    {
                        "pk": WAIT_LEASE,
                        "holder": holder,
                        "until": until_epoch,
                        "expiresAt": until_epoch + 86_400,
                    }
                ),
                ConditionExpression="attribute_not_exists(pk) OR #u < :now OR holder = :me",
                ExpressionAttributeNames={"#u": "until"},
                ExpressionAttributeValues=to_ddb({":now": now, ":me": holder}),
            )
        except ClientError as exc:
            if aws.error_code(exc) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    # ------------------------------------------------------------------ jobs
    def put_job(self, job_name: str, **attrs: Any) -> dict[str, Any]:
        """Create or update the job's item; returns it as stored."""
        sets = {"kind": JOB, "jobName": job_name, **attrs}
        names = {f"#a{i}": k for i, k in enumerate(sets)}
        values = {f":a{i}": v for i, v in enumerate(sets.values())}
        answer = self.ddb.update_item(
            TableName=self.table,
            Key=to_ddb({"pk": job_pk(job_name)}),
            UpdateExpression="SET "
            + ", ".join(f"{n} = :{n[1:]}" for n in names)
            + ", listing = :job, listedAt = if_not_exists(listedAt, :now)",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_ddb({**values, ":job": JOB, ":now": now_iso()}),
            ReturnValues="ALL_NEW",
        )
        return from_ddb(answer["Attributes"])

    def job(self, job_name: str) -> dict[str, Any] | None:
        answer = self.ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": job_pk(job_name)}), ConsistentRead=True
        )
        return from_ddb(answer["Item"]) if "Item" in answer else None

    def jobs(self, limit: int = 100) -> list[dict[str, Any]]:
        return list(self.listed(JOB, limit))


def register(doc: DocumentRef, callback_id: str, request_key: str) -> dict[str, Any]:
    """The enrich step's submitter: put the document in the pool, and when this registration
    fills the pool (every `pile_min_records`-th), start a batcher named for that fill.

    Idempotent on the run id: a submitter that runs twice registers once and starts, at
    most, the same batcher again, which its name de-duplicates.
    """
    from docflow.piles.start import start_batcher  # the starter needs the Lambda client

    settings = load_settings()
    done = Pool(settings.pile_table).register(doc, callback_id, request_key)
    started = ""
    if done.seq and done.seq % settings.pile_min_records == 0:
        started = start_batcher(f"pile-fill-{done.seq // settings.pile_min_records}")
    return {"runId": done.run_id, "seq": done.seq, "new": done.new, "batcher": started}


def callback_timeout_s(settings: Settings) -> int:
    """How long a document may wait for the batcher: the pool's maximum wait, every round
    the batcher waits on its job, and an hour to read the answers. Past it the document's own
    callback times out and it enriches on-demand."""
    rounds = settings.pile_poll_rounds * settings.pile_poll_seconds
    return settings.pile_max_wait_seconds + rounds + 3600
