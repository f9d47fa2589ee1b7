"""Where the local stack lives: its state folder, its ports, and the environment of its parts."""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypedDict

from botocore.exceptions import ClientError

from docflow import aws
from docflow.local.private import private_folder, write_private
from docflow.local.resources import LocalNames
from docflow.settings import usable_cores

DEFAULT_PORT_BASE = 8780
LOCAL_KEYS = "test"
# The account every local resource belongs to: moto's default (moto.core.DEFAULT_ACCOUNT_ID,
# named here without importing moto: the command's start pays for no more than it needs).
ACCOUNT_ID = "123456789012"
# The shipped rules file (docflow.rules.model.DEFAULT_RULES, named here without importing the
# rules' model: the command's start pays for no more than it needs).
SHIPPED_RULES = Path(__file__).resolve().parents[1] / "rules" / "rules.toml"


class StackDescribed(TypedDict):
    """Where the stack keeps its state and answers: its folder and its servers' URLs."""

    state: str
    moto: str
    runner: str
    host: str
    review: str
    converse: str
    batchInference: str


@dataclass
class StackConfig:
    state: Path
    port_base: int = DEFAULT_PORT_BASE
    sender: str = "docflow@example.com"
    # The intake queue's visibility timeout on this machine: short, so a message the starter
    # failed on comes back (and reaches the DLQ) in seconds rather than the template's minutes.
    intake_visibility_s: int = 5
    intake_max_concurrency: int = 4
    # Pages of one document read side by side: the cores this machine gives the stack (the
    # OCR itself is capped at one tesseract per core across all documents, readers/tesseract).
    page_concurrency: int = field(default_factory=usable_cores)
    # The template's schedules, played locally: how often the recorder's reconcile pass runs,
    # and how long a document must be quiet before its execution is checked.
    schedule_every_s: int = 60
    reconcile_quiet_s: int = 120
    extra_env: dict[str, str] = field(default_factory=dict)
    # The digest of the rules file the functions read (`rules_file`) when the stack started:
    # `docflow up` on a running stack says when the file, or DOCFLOW_RULES_PATH, changed.
    rules_digest: str = ""
    # "journal": every acknowledged AWS write is on disk first (durable_state.py);
    # "snapshot": a pickle every few seconds, as before: kept only to measure against.
    moto_durability: str = "journal"
    # "journal": the durable runner appends each checkpoint's change (execution_store.py);
    # "sqlite": the testing SDK's store, the whole execution at every checkpoint: kept only
    # to measure against.
    runner_store: str = "journal"
    # The path for piles, in seconds rather than hours: each batch job status lasts this long,
    # the batcher polls a job this often, and the schedule starts a batcher this often. A pile
    # `docflow backfill` submits is batched as soon as all its documents reach the pool; the
    # maximum wait bounds a pile that never completes (or one of unknown size). It must outlast
    # the time a pile takes to reach the enrich step here (intake runs four at a time: a
    # hundred one-page documents take a minute or two on a loaded machine), or the first
    # documents of a pile would give up on it. A share of records can fail on purpose.
    batch_status_s: float = 2.0
    pile_max_wait_s: int = 300
    pile_poll_s: int = 10
    pile_schedule_s: int = 15
    batch_fail_rate: float = 0.0

    def __post_init__(self) -> None:
        # Absolute, because the functions' workers run in their version's code folder: a
        # relative folder (the default `.docflow`) would name files there, not here.
        self.state = Path(self.state).absolute()

    @property
    def moto_port(self) -> int:
        return self.port_base

    @property
    def runner_port(self) -> int:
        return self.port_base + 1

    @property
    def host_port(self) -> int:
        return self.port_base + 2

    @property
    def review_port(self) -> int:
        return self.port_base + 10

    @property
    def converse_port(self) -> int:
        return self.port_base + 5

    @property
    def batch_port(self) -> int:
        return self.port_base + 6

    def ports(self) -> dict[str, int]:
        """Every port the stack listens on, by the part that listens."""
        return {
            "moto": self.moto_port,
            "runner": self.runner_port,
            "host": self.host_port,
            "converse": self.converse_port,
            "batchInference": self.batch_port,
            "review": self.review_port,
        }

    @property
    def moto_url(self) -> str:
        return f"http://127.0.0.1:{self.moto_port}"

    @property
    def runner_url(self) -> str:
        return f"http://127.0.0.1:{self.runner_port}"

    @property
    def host_url(self) -> str:
        return f"http://127.0.0.1:{self.host_port}"

    @property
    def otel_dir(self) -> Path:
        """Where the stack's spans go, a file a trace (`docflow trace --otel` reads them)."""
        return self.state / "otel"

    @property
    def review_url(self) -> str:
        return f"http://127.0.0.1:{self.review_port}"

    @property
    def names(self) -> LocalNames:
        return LocalNames(prefix="docflow")

    @property
    def claims_table(self) -> str:
        return "docflow-local-start-claims"

    def client_env(self) -> dict[str, str]:
        """What any local client (the CLI, a test) needs to talk to this stack's AWS."""
        return {
            "AWS_ACCESS_KEY_ID": LOCAL_KEYS,
            "AWS_SECRET_ACCESS_KEY": LOCAL_KEYS,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": self.moto_url,
            "AWS_ENDPOINT_URL_LAMBDA": self.runner_url,
            "DOCFLOW_LAMBDA_INVOKE_ENDPOINT": self.host_url,
            **self.names.settings_env(),
        }

    def function_env(self) -> dict[str, str]:
        """The functions' configuration, as the template would set it."""
        return {
            **self.client_env(),
            "DOCFLOW_REPORTER": "lambda",
            "DOCFLOW_STATUS_RECORDER_FUNCTION": "docflow-status-recorder",
            "DOCFLOW_ORCHESTRATOR_FUNCTION": "docflow-orchestrator",
            "DOCFLOW_LOCAL_RUNNER_URL": self.runner_url,
            "DOCFLOW_START_CLAIMS_TABLE": self.claims_table,
            "DOCFLOW_REVIEW_BASE_URL": self.review_url,
            "DOCFLOW_REVIEW_SENDER": self.sender,
            "DOCFLOW_OCR_ENGINE": "auto",
            "DOCFLOW_OCR_FALLBACK": "tesseract",
            "DOCFLOW_PAGE_CONCURRENCY": str(self.page_concurrency),
            "DOCFLOW_ORCHESTRATOR_NAME": "docflow-orchestrator",
            "DOCFLOW_RECONCILE_QUIET_S": str(self.reconcile_quiet_s),
            "POWERTOOLS_SERVICE_NAME": "docflow",
            # Bedrock's emulators (Converse, batch inference) and the path for piles.
            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": f"http://127.0.0.1:{self.converse_port}",
            "AWS_ENDPOINT_URL_BEDROCK": f"http://127.0.0.1:{self.batch_port}",
            "DOCFLOW_BATCHER_FUNCTION": "docflow-batcher",
            # An e-invoice's EN 16931 rules in their own function, as in AWS (docs/einvoice.md).
            "DOCFLOW_EINVOICE_RULES_FUNCTION": "docflow-einvoice-rules",
            "DOCFLOW_PILE_ROLE_ARN": "arn:aws:iam::123456789012:role/docflow-batch-inference",
            "DOCFLOW_PILE_MAX_WAIT_SECONDS": str(self.pile_max_wait_s),
            "DOCFLOW_PILE_POLL_SECONDS": str(self.pile_poll_s),
            "DOCFLOW_PILE_POLL_ROUNDS": "60",
            # CloudWatch's part locally: data points for the local dashboard.
            "DOCFLOW_METRICS_FILE": str(self.state / "metrics.jsonl"),
            # An OTLP collector's part locally: one JSON Lines file a trace (docs/trace.md).
            "DOCFLOW_OTEL": "file",
            "DOCFLOW_OTEL_DIR": str(self.otel_dir),
            **self.extra_env,
        }

    def rules_file(self) -> Path:
        """The rules file the stack's functions read: DOCFLOW_RULES_PATH's when `up` was
        given one (kept across restarts), else the shipped one."""
        return Path(self.extra_env.get("DOCFLOW_RULES_PATH") or SHIPPED_RULES)

    def describe(self) -> StackDescribed:
        return {
            "state": str(self.state),
            "moto": self.moto_url,
            "runner": self.runner_url,
            "host": self.host_url,
            "review": self.review_url,
            "converse": f"http://127.0.0.1:{self.converse_port}",
            "batchInference": f"http://127.0.0.1:{self.batch_port}",
        }

    def save(self) -> None:
        private_folder(self.state)  # its owner's alone (docflow/local/private.py)
        data = asdict(self)
        data["state"] = str(self.state)
        write_private(self.state / "stack.json", json.dumps(data, indent=2))

    @classmethod
    def load(cls, state: Path) -> StackConfig:
        path = state / "stack.json"
        if path.exists():
            data = json.loads(path.read_text())
            data["state"] = state  # where the file is: the folder may have moved since
            return cls(**data)
        port_base = int(os.environ.get("DOCFLOW_LOCAL_PORT_BASE", DEFAULT_PORT_BASE))
        return cls(state=state, port_base=port_base)

    def create_local_only_tables(self) -> None:
        """The start-claims table exists only locally: in AWS, Lambda de-duplicates starts."""

        try:
            aws.client("dynamodb").create_table(
                TableName=self.claims_table,
                BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            )
        except ClientError as exc:
            if aws.error_code(exc) != "ResourceInUseException":
                raise
        sqs = aws.client("sqs")
        url = sqs.get_queue_url(QueueName=self.names("IntakeQueue"))["QueueUrl"]
        sqs.set_queue_attributes(
            QueueUrl=url, Attributes={"VisibilityTimeout": str(self.intake_visibility_s)}
        )

    @staticmethod
    def wait_for(url: str, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback only
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


def file_digest(path: Path) -> str:
    """A file's content as a short digest; empty when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""
