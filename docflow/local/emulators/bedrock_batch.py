"""Bedrock batch inference (Create/Get/List/StopModelInvocationJob) on loopback: an emulator.

moto implements none of the model-invocation-job calls. This server speaks the Bedrock control
plane's REST-JSON protocol as botocore's `bedrock` client sends it (`POST /model-invocation-job`,
`GET /model-invocation-job/{id}`, `GET /model-invocation-jobs`,
`POST /model-invocation-job/{id}/stop`), so the batcher's production code runs unchanged
against it (`AWS_ENDPOINT_URL_BEDROCK`). A job reads its JSONL input from S3 (moto), answers
each record with the local stand-in model (`stand_in_answer`: the enrichment's rules engine
over the prompt's pages, as prompted JSON; not a language model), writes one
`<input file>.out` per input file and `manifest.json.out` under `<output>/<job id>/`, and walks

    Submitted -> Validating -> Scheduled -> InProgress -> Completed

with a delay per status (seconds here, hours in AWS), publishing each change to EventBridge
(source `aws.bedrock`, detail-type `Batch Inference Job State Change`) on the default bus.
A job with fewer records than `min_records` ends Failed at validation, as the service's quota
makes it. Faults on request, seeded:

    fail_rate      a share of records answered with an `error` instead of `modelOutput`
    bad_rate       a share answered with JSON that does not match the schema
    expire_jobs    job numbers (1 = the first job created) that end Expired without output
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs, unquote, urlsplit

from docflow import aws
from docflow.local.emulators.base import LoopbackEmulator, Reply, Request
from docflow.local.emulators.bedrock_batch_shapes import (
    CreateJobRequest,
    InputRecord,
    JobDescribed,
    OutputRecord,
    RecordCounts,
)

if TYPE_CHECKING:
    from docflow.converse import ConverseRequest
    from docflow.local.emulators.bedrock import ConverseAnswer

ACCOUNT = "123456789012"
REGION = "us-east-1"
WALK = ("Submitted", "Validating", "Scheduled", "InProgress")
TERMINAL = frozenset({"Completed", "PartiallyCompleted", "Failed", "Stopped", "Expired"})
_JOB = re.compile(r"^/model-invocation-job/([^/]+)(/stop)?$")

# A record's modelInput (a Converse request) -> Converse's answer.
Model = Callable[["ConverseRequest"], "ConverseAnswer"]


@dataclass
class BatchStats:
    jobs: int = 0
    records: int = 0
    answered: int = 0
    failed_records: int = 0
    bad_answers: int = 0
    expired_jobs: int = 0
    events: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Job:
    arn: str
    name: str
    token: str
    model_id: str
    role_arn: str
    input_uri: str
    output_uri: str
    timeout_hours: int
    number: int
    status: str = "Submitted"
    message: str = ""
    submitted: datetime = field(default_factory=lambda: datetime.now(UTC))
    changed: datetime = field(default_factory=lambda: datetime.now(UTC))
    ended: datetime | None = None
    counts: RecordCounts = field(default_factory=RecordCounts)
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def job_id(self) -> str:
        return self.arn.rsplit("/", 1)[-1]

    def describe(self) -> JobDescribed:
        answer: JobDescribed = {
            "jobArn": self.arn,
            "jobName": self.name,
            "modelId": self.model_id,
            "clientRequestToken": self.token,
            "roleArn": self.role_arn,
            "status": self.status,
            "submitTime": self.submitted.isoformat(),
            "lastModifiedTime": self.changed.isoformat(),
            "inputDataConfig": {"s3InputDataConfig": {"s3Uri": self.input_uri}},
            "outputDataConfig": {"s3OutputDataConfig": {"s3Uri": self.output_uri}},
            "timeoutDurationInHours": self.timeout_hours,
            **self.counts,
        }
        if self.message:
            answer["message"] = self.message
        if self.ended:
            answer["endTime"] = self.ended.isoformat()
        return answer


# An input file's records. Named outside the class, whose `list` action hides the builtin there.
Records = list[InputRecord]


class BedrockBatchEmulator(LoopbackEmulator):
    def __init__(
        self,
        port: int = 0,
        delays: dict[str, float] | None = None,
        fail_rate: float = 0.0,
        bad_rate: float = 0.0,
        expire_jobs: frozenset[int] | set[int] = frozenset(),
        min_records: int = 100,
        seed: int = 0,
        model: Model | None = None,
    ) -> None:
        super().__init__(port=port, seed=seed)
        if not (0.0 <= fail_rate < 1.0 and 0.0 <= bad_rate < 1.0):
            raise ValueError("fail_rate and bad_rate must be in [0, 1)")
        self.delays = {status: 0.2 for status in WALK} | (delays or {})
        self.fail_rate, self.bad_rate = fail_rate, bad_rate
        self.expire_jobs, self.min_records = set(expire_jobs), min_records
        self.model = model or stand_in_answer
        self.stats = BatchStats()
        self.jobs: dict[str, Job] = {}

    # ------------------------------------------------------------------ the API
    def handle(self, request: Request) -> Reply:
        path = urlsplit(request.path).path
        if request.method == "POST" and path == "/model-invocation-job":
            return self.create(cast("CreateJobRequest", json.loads(request.body or b"{}")))
        if request.method == "GET" and path == "/model-invocation-jobs":
            return self.list(parse_qs(urlsplit(request.path).query))
        match = _JOB.match(path)
        if match:
            job = self._find(unquote(match[1]))
            if job is None:
                return _error(404, "ResourceNotFoundException", "no such job")
            if request.method == "GET" and not match[2]:
                return Reply(200, job.describe())
            if request.method == "POST" and match[2]:
                return self.stop_job(job)
        return _error(404, "UnknownOperationException", f"{request.method} {path} is not emulated")

    def create(self, body: CreateJobRequest) -> Reply:
        try:
            name, role, model = body["jobName"], body["roleArn"], body["modelId"]
            input_uri = body["inputDataConfig"]["s3InputDataConfig"]["s3Uri"]
            output_uri = body["outputDataConfig"]["s3OutputDataConfig"]["s3Uri"]
        except (KeyError, TypeError):
            return _error(400, "ValidationException", "jobName, roleArn, modelId, input, output")
        if not str(role).startswith("arn:"):
            return _error(400, "ValidationException", "roleArn must be a role's ARN")
        hours = int(body.get("timeoutDurationInHours") or 24)
        if not 24 <= hours <= 168:
            return _error(400, "ValidationException", "timeoutDurationInHours must be 24..168")
        token = str(body.get("clientRequestToken") or uuid.uuid4())
        with self._lock:
            for job in self.jobs.values():
                if job.token == token and job.name == name:
                    return Reply(200, {"jobArn": job.arn})  # the same request again
                if job.name == name:
                    return _error(409, "ConflictException", f"a job named {name} exists")
            self.stats.jobs += 1
            job_id = uuid.UUID(int=self._random.getrandbits(128)).hex[:12]
            arn = f"arn:aws:bedrock:{REGION}:{ACCOUNT}:model-invocation-job/{job_id}"
            job = Job(arn, name, token, model, role, input_uri, output_uri, hours, self.stats.jobs)
            self.jobs[arn] = job
        self._publish(job)
        threading.Thread(target=self._run, args=(job,), daemon=True).start()
        return Reply(200, {"jobArn": job.arn})

    def list(self, query: dict[str, list[str]]) -> Reply:
        contains = (query.get("nameContains") or [""])[0]
        status = (query.get("statusEquals") or [""])[0]
        with self._lock:
            jobs = [
                j.describe()
                for j in self.jobs.values()
                if contains in j.name and (not status or j.status == status)
            ]
        return Reply(200, {"invocationJobSummaries": jobs})

    def stop_job(self, job: Job) -> Reply:
        if job.status in TERMINAL:
            return _error(409, "ConflictException", f"the job is {job.status}")
        job.stop.set()
        self._move(job, "Stopping")
        return Reply(200, {})

    # ------------------------------------------------------------------ the job's life
    def _run(self, job: Job) -> None:
        try:
            for status in WALK[1:]:
                if job.stop.wait(self.delays[WALK[WALK.index(status) - 1]]):
                    return self._end(job, "Stopped")
                if status == "InProgress" and job.number in self.expire_jobs:
                    with self._lock:
                        self.stats.expired_jobs += 1
                    return self._end(job, "Expired", "the job did not start before its timeout")
                self._move(job, status)
                if status == "Validating":
                    records = self._read_input(job)
                    total = job.counts["totalRecordCount"]
                    if total < self.min_records:
                        message = f"{total} records; a job needs {self.min_records}"
                        return self._end(job, "Failed", message)
            if job.stop.wait(self.delays["InProgress"]):
                return self._end(job, "Stopped")
            self._answer(job, records)
            self._end(job, "Completed")
        except Exception as exc:  # a broken input file fails the job, as the service does
            self._end(job, "Failed", f"{type(exc).__name__}: {exc}"[:200])

    def _read_input(self, job: Job) -> dict[str, Records]:
        """Input file name -> its records (the input URI is a file or a folder)."""
        bucket, prefix = _split(job.input_uri)
        s3 = aws.client("s3")
        if prefix.endswith(".jsonl"):
            keys = [prefix]
        else:
            listed = s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
            keys = sorted(o["Key"] for o in listed if o["Key"].endswith(".jsonl"))
        files: dict[str, Records] = {}
        for key in keys:
            body = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8")
            files[key.rsplit("/", 1)[-1]] = [json.loads(x) for x in body.splitlines() if x.strip()]
        total = sum(len(v) for v in files.values())
        job.counts = {"totalRecordCount": total}
        return files

    def _answer(self, job: Job, files: Any) -> None:
        bucket, prefix = _split(job.output_uri)
        base = f"{prefix.rstrip('/')}/{job.job_id}/" if prefix else f"{job.job_id}/"
        s3 = aws.client("s3")
        ok = errors = tokens_in = tokens_out = 0
        for name, records in files.items():
            lines = []
            for record in records:
                line, good, used = self._one(record)
                lines.append(json.dumps(line))
                ok, errors = ok + good, errors + (not good)
                tokens_in, tokens_out = tokens_in + used[0], tokens_out + used[1]
            s3.put_object(Bucket=bucket, Key=f"{base}{name}.out", Body="\n".join(lines) + "\n")
        job.counts = {
            "totalRecordCount": ok + errors,
            "processedRecordCount": ok + errors,
            "successRecordCount": ok,
            "errorRecordCount": errors,
        }
        manifest = {
            **job.counts,
            "inputTokenCount": tokens_in,
            "outputTokenCount": tokens_out,
        }
        s3.put_object(Bucket=bucket, Key=f"{base}manifest.json.out", Body=json.dumps(manifest))

    def _one(self, record: InputRecord) -> tuple[OutputRecord, bool, tuple[int, int]]:
        with self._lock:
            self.stats.records += 1
            fail = self._random.random() < self.fail_rate
            bad = not fail and self._random.random() < self.bad_rate
        line = OutputRecord(recordId=record.get("recordId"), modelInput=record.get("modelInput"))
        if fail:
            with self._lock:
                self.stats.failed_records += 1
            line["error"] = {"errorCode": 500, "errorMessage": "the model could not answer"}
            return line, False, (0, 0)
        output = self.model(record.get("modelInput") or {})
        if bad:
            output["output"]["message"]["content"] = [{"text": '{"summary": "prose, not JSON"}'}]
            with self._lock:
                self.stats.bad_answers += 1
        used = (output["usage"]["inputTokens"], output["usage"]["outputTokens"])
        with self._lock:
            self.stats.answered += 1
            self.stats.input_tokens += used[0]
            self.stats.output_tokens += used[1]
        line["modelOutput"] = output
        return line, True, used

    def _move(self, job: Job, status: str) -> None:
        with self._lock:
            job.status, job.changed = status, datetime.now(UTC)
        self._publish(job)

    def _end(self, job: Job, status: str, message: str = "") -> None:
        with self._lock:
            job.message, job.ended = message, datetime.now(UTC)
        self._move(job, status)

    def _publish(self, job: Job) -> None:
        """The state-change event, as Bedrock sends it to the account's default bus."""
        detail = {
            "accountId": ACCOUNT,
            "batchJobName": job.name,
            "batchJobArn": job.arn,
            "batchModelId": job.model_id,
            "status": job.status,
        }
        if job.message:
            detail["statusReason"] = job.message
        try:
            aws.client("events").put_events(
                Entries=[
                    {
                        "Source": "aws.bedrock",
                        "DetailType": "Batch Inference Job State Change",
                        "Resources": [job.arn],
                        "Detail": json.dumps(detail),
                    }
                ]
            )
            with self._lock:
                self.stats.events += 1
        except Exception as exc:  # events are best-effort in AWS too; the poll covers them
            print(f"bedrock batch emulator: event not published: {exc!r}", flush=True)

    def _find(self, ident: str) -> Job | None:
        with self._lock:
            return next((j for j in self.jobs.values() if ident in (j.arn, j.job_id)), None)

    def wait_idle(self, timeout_s: float = 60.0) -> bool:
        """True once every job has ended (for tests and benchmarks)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if all(j.status in TERMINAL for j in self.jobs.values()):
                    return True
            time.sleep(0.05)
        return False


def stand_in_answer(model_input: ConverseRequest) -> ConverseAnswer:
    """The Converse emulator's stand-in model on a prompted-JSON record, in the Converse
    answer's shape (`output.message.content[].text`); tokens are characters / 4, as there."""
    from docflow.local.emulators.bedrock import prompt_of
    from docflow.local.emulators.stand_in import stand_in_enrichment

    body = json.dumps(stand_in_enrichment(prompt_of(model_input)))
    tokens_in, tokens_out = len(json.dumps(model_input)) // 4, len(body) // 4
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": body}]}},
        "stopReason": "end_turn",
        "usage": {
            "inputTokens": tokens_in,
            "outputTokens": tokens_out,
            "totalTokens": tokens_in + tokens_out,
        },
    }


def _split(uri: str) -> tuple[str, str]:
    rest = uri.removeprefix("s3://")
    bucket, _, prefix = rest.partition("/")
    return bucket, prefix


def _error(status: int, code: str, message: str) -> Reply:
    return Reply(status, {"message": message}, {"x-amzn-ErrorType": code})
