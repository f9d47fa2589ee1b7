"""The pool: documents of a pile waiting for a Bedrock batch inference job, in DynamoDB.

One item per waiting document, `record#<run id>`, holding the document, its version, the run
id (the batch record's `recordId`), the callback id its execution waits on, and the S3 key of
its batch model input. Its `listing` walks one way only, each move a conditional write:

    pending --claim--> claimed --job started--> sent --answered--> done
    pending --waited too long--> done (sent on-demand)

so no record is in two jobs and none is answered twice. One item per job, `job#<name>`,
holds the job's ARN, status, counts and the callback id the batcher waits on for the job's
state-change event (never a document's). `lease#pool-wait` names the one batcher waiting for
a small pool to fill; `lease#claim` the one batcher claiming records (so two batchers that
start together do not split a pile into two jobs below the minimum).

A pile of known size (docflow.piles.manifest) has one item, `pile#<name>`: its `expected`
count (set, never added to: a manifest read twice does not double it), the records
`registered` so far and when the first one came (`firstAt`). A record and its pile's count
are written in one transaction, conditional on the record being new, so a redelivered document
or a re-run submitter counts once. Its records are held back from every batcher until the
pile is complete or its first record has waited the maximum; the registration that completes
it starts the pile's batcher. Records of no known pile are numbered by `counter#registered`:
every `pile_min_records`-th one starts a batcher named for it, so a filling pool starts one
batcher per fill, however often a submitter re-runs. The callback ids are not secrets that
open anything beyond completing that one wait, and nothing here is a link.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from docflow import aws
from docflow.dynamo import ConditionFailed, Table
from docflow.ids import DocumentRef
from docflow.piles import leases, sized
from docflow.piles.manifest import PileJson, PileManifest, batcher_name
from docflow.piles.shapes import JobItem, PileItem, RecordItem, Registration, Withdrawal
from docflow.readmodel.table import from_ddb, put_new, to_ddb
from docflow.settings import Settings, load_settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import KeysAndAttributesTypeDef, QueryInputTypeDef

PENDING, CLAIMED, SENT, DONE = "pending", "claimed", "sent", "done"
JOB = "job"
INDEX = "by-listing"
COUNTER = "counter#registered"
WAIT_LEASE = "lease#pool-wait"
CLAIM_LEASE = "lease#claim"
CLAIM_LEASE_S = 120  # longer than a claim step takes; a crashed claimer's lease lapses
# Done records are kept a while for `docflow jobs` and audits, then expire.
DONE_TTL_S = 30 * 24 * 3600


def record_pk(run_id: str) -> str:
    return f"record#{run_id}"


def job_pk(job_name: str) -> str:
    return f"job#{job_name}"


def pile_pk(pile: str) -> str:
    return f"pile#{pile}"


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
    def register(
        self,
        doc: DocumentRef,
        callback_id: str,
        request_key: str,
        pile: PileManifest | None = None,
    ) -> Registered:
        """Add the document's record once per run id; a second call returns the first's."""
        found = self.record(doc.run_id)
        if found is not None:
            return Registered(doc.run_id, int(found.get("seq", 0)), new=False)
        if pile is not None:
            return self._register_in_pile(doc, callback_id, request_key, pile)
        seq = int(
            self.ddb.update_item(
                TableName=self.table,
                Key=to_ddb({"pk": COUNTER}),
                UpdateExpression="ADD registered :one",
                ExpressionAttributeValues=to_ddb({":one": 1}),
                ReturnValues="UPDATED_NEW",
            )["Attributes"]["registered"]["N"]
        )
        item: RecordItem = {**_record_item(doc, callback_id, request_key, now_iso()), "seq": seq}
        if not put_new(self.ddb, self.table, dict(item)):
            # A concurrent re-run of the same submitter won; its number stands.
            found = self.record(doc.run_id) or {}
            return Registered(doc.run_id, int(found.get("seq", 0)), new=False)
        return Registered(doc.run_id, seq, new=True)

    def _register_in_pile(
        self, doc: DocumentRef, callback_id: str, request_key: str, pile: PileManifest
    ) -> Registered:
        item: RecordItem = {
            **_record_item(doc, callback_id, request_key, now_iso()),
            "pile": pile.pile,
            "seq": 0,  # not numbered: a pile of known size starts its own batcher
        }
        new = sized.register(self.ddb, self.table, item, pile_pk(pile.pile), pile)
        return Registered(doc.run_id, 0, new=new)

    def withdraw(self, doc: DocumentRef, pile: PileManifest) -> bool:
        """The document of `pile` ended before it registered (it failed to be read): count it
        as in, so the rest of the pile need not wait for it. Once per run; never for a run
        that registered."""
        return sized.withdraw(
            self.ddb,
            self.table,
            record_pk(doc.run_id),
            f"gone#{doc.run_id}",
            pile_pk(pile.pile),
            pile,
        )

    def pile(self, pile: str) -> PileItem | None:
        return cast("PileItem | None", self._item(pile_pk(pile)))

    def record(self, run_id: str) -> RecordItem | None:
        return cast("RecordItem | None", self._item(record_pk(run_id)))

    def _item(self, pk: str) -> Any:
        answer = self.ddb.get_item(
            TableName=self.table, Key=to_ddb({"pk": pk}), ConsistentRead=True
        )
        return from_ddb(answer["Item"]) if "Item" in answer else None

    def states(self, run_ids: list[str]) -> dict[str, str]:
        """run id -> its record's listing, read in batches of 100 (consistent reads)."""
        found: dict[str, str] = {}
        for start in range(0, len(run_ids), 100):
            keys = [to_ddb({"pk": record_pk(r)}) for r in run_ids[start : start + 100]]
            request: dict[str, KeysAndAttributesTypeDef] = {
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

    def listed(self, listing: str, limit: int | None = None) -> Iterator[RecordItem]:
        """Records in one listing, oldest first (the sparse index; never a scan)."""
        return cast("Iterator[RecordItem]", self._listed(listing, limit))

    def _listed(self, listing: str, limit: int | None) -> Iterator[Any]:
        args: QueryInputTypeDef = {
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
        args: QueryInputTypeDef = {
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
            Table(self.table, self.ddb).update(
                {"pk": record_pk(run_id)},
                "SET " + ", ".join(f"{n} = :{n[1:]}" for n in names),
                condition=condition,
                names=names,
                values=values,
            )
        except ConditionFailed:
            return False
        return True

    def of_job(self, listing: str, job: str) -> list[RecordItem]:
        return [r for r in self.listed(listing) if r.get("jobName") == job]

    def take_wait(self, holder: str, until_epoch: int) -> bool:
        """Become the one batcher that waits for a small pool to fill (until `until_epoch`);
        False while another holds that wait. Scheduled batchers that find it held do not wait
        too, so a slow pool never has a crowd of idle batchers."""
        return leases.take(self.ddb, self.table, WAIT_LEASE, holder, until_epoch)

    def take_claim(self, holder: str) -> bool:
        """Become the one batcher claiming records now; False while another claims."""
        until = int(datetime.now(UTC).timestamp()) + CLAIM_LEASE_S
        return leases.take(self.ddb, self.table, CLAIM_LEASE, holder, until)

    def drop_claim(self, holder: str) -> None:
        leases.drop(self.ddb, self.table, CLAIM_LEASE, holder)

    # ------------------------------------------------------------------ jobs
    def put_job(self, job_name: str, **attrs: Any) -> JobItem:
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
        return cast("JobItem", from_ddb(answer["Attributes"]))

    def job(self, job_name: str) -> JobItem | None:
        return cast("JobItem | None", self._item(job_pk(job_name)))

    def jobs(self, limit: int | None = 100) -> list[JobItem]:
        return list(self._listed(JOB, limit))


def _record_item(doc: DocumentRef, callback_id: str, request_key: str, now: str) -> RecordItem:
    return {
        "pk": record_pk(doc.run_id),
        "kind": "record",
        "runId": doc.run_id,
        "documentId": doc.document_id,
        "version": doc.version,
        "key": doc.key,
        "callbackId": callback_id,
        "requestKey": request_key,
        "listing": PENDING,
        "listedAt": now,
        "registeredAt": now,
    }


def register(
    doc: DocumentRef,
    callback_id: str,
    request_key: str,
    pile: PileJson | None = None,
) -> Registration:
    """The enrich step's submitter: put the document in the pool. In a pile of known size
    (`pile`, as the `enrich` step checkpointed it), the registration that completes the pile
    starts the pile's batcher; otherwise the one that fills the pool (every
    `pile_min_records`-th) starts a batcher named for that fill.

    Idempotent on the run id: a submitter that runs twice registers once and starts, at
    most, the same batcher again, which its name de-duplicates (a re-run after a crash
    between the registration and the start still starts it).
    """
    from docflow.piles.start import start_batcher  # the starter needs the Lambda client

    settings = load_settings()
    pool = Pool(settings.pile_table)
    manifest = PileManifest.from_dict(pile) if pile else None
    done = pool.register(doc, callback_id, request_key, manifest)
    started = ""
    if manifest is not None:
        if sized.complete(pool.pile(manifest.pile)):
            started = start_batcher(batcher_name(manifest.pile))
    elif done.seq and done.seq % settings.pile_min_records == 0:
        started = start_batcher(f"pile-fill-{done.seq // settings.pile_min_records}")
    return {"runId": done.run_id, "seq": done.seq, "new": done.new, "batcher": started}


def withdraw(doc: DocumentRef, pile: PileJson) -> Withdrawal:
    """A document of a pile of known size ended before its enrich step (it could not be
    read): count it as in and, when that completes the pile, start the pile's batcher, so the
    rest of the pile does not wait the maximum for it. Idempotent, as `register` is."""
    from docflow.piles.start import start_batcher  # the starter needs the Lambda client

    manifest = PileManifest.from_dict(pile)
    pool = Pool(load_settings().pile_table)
    withdrawn = pool.withdraw(doc, manifest)
    started = ""
    if sized.complete(pool.pile(manifest.pile)):
        started = start_batcher(batcher_name(manifest.pile))
    return {"withdrawn": withdrawn, "batcher": started}


def callback_timeout_s(settings: Settings) -> int:
    """How long a document may wait for the batcher: the pool's maximum wait, every round
    the batcher waits on its job, and an hour to read the answers. Past it the document's own
    callback times out and it enriches on-demand."""
    rounds = settings.pile_poll_rounds * settings.pile_poll_seconds
    return settings.pile_max_wait_seconds + rounds + 3600
