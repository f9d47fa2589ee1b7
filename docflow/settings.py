"""Every tunable of docflow in one typed place, read from the environment once.

Each function reads the same variables; the SAM template sets them from its parameters and
the local stack from its own defaults. Values are validated at load so that a bad deploy fails
on its first invocation with a message naming the variable, not deep inside a step.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache

OCR_ENGINES = ("auto", "textlayer", "tesseract", "textract")
OCR_FALLBACKS = ("tesseract", "textract")
REPORTERS = ("lambda", "inprocess")
EXTRACT_ENGINES = ("rules", "textract-expense", "textract", "bedrock")
ENRICH_ENGINES = ("rules", "bedrock")
PACKET_ENGINES = ("rules", "bedrock")


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, as a container or taskset sets
    it), not the machine's count: the OCR cap and the local stack's page concurrency."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)


class SettingsError(ValueError):
    """A setting is missing or out of range; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    artifact_bucket: str = "docflow-artifacts"
    table_name: str = "docflow-status"
    links_table: str = "docflow-review-links"
    # Each reviewer's pending items, one partition per reviewer (docflow.review.stage.inbox).
    inbox_table: str = "docflow-inbox"
    # Pages are read in batches so that durable operations grow with pages / batch, not pages.
    page_batch_size: int = 10
    max_batches: int = 100
    page_concurrency: int = 4
    ocr_engine: str = "auto"
    ocr_fallback: str = "tesseract"
    ocr_dpi: int = 200
    text_layer_min_chars: int = 16
    max_pages: int = 5000
    max_bytes: int = 512 * 1024 * 1024
    # PDF user space units (1/72 in). 14,400 is the largest page the PDF spec allows.
    max_page_points: float = 14400.0
    throttle_max_attempts: int = 8
    throttle_base_delay_s: float = 0.5
    throttle_max_delay_s: float = 20.0
    # Cross-execution cap on concurrent calls to a rate-limited reader (Textract).
    reader_concurrency_cap: int = 0
    reader_lease_table: str = "docflow-reader-leases"
    execution_timeout_s: int = 30 * 24 * 3600  # as template.yaml's ExecutionTimeoutSeconds
    # When above 0, every review stage waits this long instead of its rules-file timeout.
    stage_timeout_s: int = 0
    rules_path: str = ""
    reporter: str = "lambda"
    status_recorder_function: str = "docflow-status-recorder"
    history_ttl_days: int = 365
    review_base_url: str = "http://127.0.0.1:8790"
    review_sender: str = "docflow@example.com"
    review_link_ttl_s: int = 7 * 24 * 3600
    # A reviewer's inbox link (docflow.review.access.inbox_links) lives this long; the digest and
    # `docflow inbox` hand out the same link until it has less than half of it left. A week:
    # the link lists and opens everything waiting on the reviewer.
    inbox_link_ttl_s: int = 7 * 24 * 3600
    # Opening a document claims it for this long (renewed on every open of its page).
    review_claim_s: int = 15 * 60
    signing_secret_id: str = ""
    signing_key_source: str = "secretsmanager"
    # Each machine integration's own HMAC secret, `{"service:<name>": "<secret>", ...}`, read
    # the way the signing key ring is (`signing_key_source`); with "env", from
    # DOCFLOW_INTEGRATION_SECRETS. Never the reviewers' key ring.
    integration_secret_id: str = ""
    # With CloudFront in front of the callback API (docflow.review.access.origin): the secret
    # CloudFront sends in its origin header; "" = no lock (the local stack, no CloudFront).
    origin_secret_id: str = ""
    callback_max_body_bytes: int = 16 * 1024
    # The reconcile pass: which function's executions to ask about, and how long a document
    # must have been quiet before its execution is checked.
    orchestrator_name: str = "docflow-orchestrator"
    # What the starters start (docflow.intake.build_starter): the orchestrator's alias in AWS;
    # on the local stack the local runner's URL and the table that claims execution names
    # (the local runner does not de-duplicate names). No runner URL: Lambda's invoke.
    orchestrator_function: str = "docflow-orchestrator"
    local_runner_url: str = ""
    start_claims_table: str = ""
    reconcile_quiet_s: int = 3600
    machine_callback_window_s: int = 300
    # The EventBridge bus the recorder announces transitions on (docflow.events); "" = none.
    event_bus_name: str = ""
    # Key fields of invoices and purchase orders: rules (local), textract-expense, textract
    # (AnalyzeDocument queries and tables), bedrock.
    extract_engine: str = "rules"
    extract_model_id: str = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    # Summary and risk per document: rules (local, deterministic) or bedrock (Converse).
    enrich_engine: str = "rules"
    enrich_model_id: str = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    # The model's on-demand quota share for enrich, across every execution (DynamoDB, in the
    # reader lease table); 0 = no budget (calls are only throttle-retried).
    enrich_tokens_per_minute: int = 20_000
    # A packet's page-level classification (docflow.packets): rules (local) or bedrock.
    packet_engine: str = "rules"
    packet_model_id: str = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    # Uploads under this prefix take the path for piles (Bedrock batch inference).
    pile_prefix: str = "backfill/"
    # Piles (docflow.piles): documents under this key prefix are enriched by Bedrock batch
    # inference. A job needs pile_min_records (the service's per-model minimum); a smaller pool
    # waits up to pile_max_wait_seconds, then goes on-demand. The batcher waits on the job's
    # state-change event, polling GetModelInvocationJob every pile_poll_seconds as a fallback.
    pile_table: str = "docflow-pile"
    # The supplier registry (docflow.suppliers): checked ids, names, learned profiles.
    supplier_table: str = "docflow-suppliers"
    # Duplicate invoices' claims (docflow.suppliers.duplicates): one item per claimed key.
    duplicate_table: str = "docflow-duplicates"
    # Orders, their receipts and bills, and invoices waiting for them (docflow.matching.store).
    order_table: str = "docflow-orders"
    pile_min_records: int = 100
    pile_max_records: int = 50_000
    pile_max_wait_seconds: int = 6 * 3600
    pile_job_timeout_hours: int = 24
    pile_poll_seconds: int = 3600
    # Rounds of (wait for the event, then poll) before the batcher stops the job and sends its
    # documents on-demand; each round costs about four durable operations.
    pile_poll_rounds: int = 48
    pile_model_id: str = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    pile_role_arn: str = ""
    # The batcher a filling pool starts (the alias ARN in AWS); "" starts none.
    batcher_function: str = ""
    # The function that runs an e-invoice's EN 16931 rules where Saxon is not installed
    # (docflow.einvoice.rules_function, which reads the variable itself); "" runs them here.
    einvoice_rules_function: str = ""
    # One OpenTelemetry trace per run (docflow.telemetry, which reads the variable itself, per
    # span): "off"; "file", the local stack's span files under DOCFLOW_OTEL_DIR; "otlp", the
    # global provider the ADOT layer sets up in AWS (the template's OtelExport parameter).
    otel: str = "off"

    def __post_init__(self) -> None:
        _require(self.otel in ("off", "file", "otlp"), "DOCFLOW_OTEL must be off, file or otlp")
        _require(self.page_batch_size >= 1, "DOCFLOW_PAGE_BATCH_SIZE must be at least 1")
        _require(self.max_batches >= 1, "DOCFLOW_MAX_BATCHES must be at least 1")
        _require(
            1 <= self.page_concurrency <= 64,
            "DOCFLOW_PAGE_CONCURRENCY must be between 1 and 64 (each slot is a thread)",
        )
        _require(
            self.ocr_engine in OCR_ENGINES,
            f"DOCFLOW_OCR_ENGINE must be one of {', '.join(OCR_ENGINES)}",
        )
        _require(
            self.ocr_fallback in OCR_FALLBACKS,
            f"DOCFLOW_OCR_FALLBACK must be one of {', '.join(OCR_FALLBACKS)}",
        )
        _require(72 <= self.ocr_dpi <= 600, "DOCFLOW_OCR_DPI must be between 72 and 600")
        _require(1 <= self.max_pages <= 100_000, "DOCFLOW_MAX_PAGES must be 1..100000")
        _require(self.max_bytes >= 1, "DOCFLOW_MAX_BYTES must be positive")
        _require(self.throttle_max_attempts >= 1, "DOCFLOW_THROTTLE_MAX_ATTEMPTS must be >= 1")
        _require(
            0 <= self.throttle_base_delay_s <= self.throttle_max_delay_s,
            "DOCFLOW_THROTTLE_BASE_DELAY_S must be between 0 and DOCFLOW_THROTTLE_MAX_DELAY_S",
        )
        _require(self.reader_concurrency_cap >= 0, "DOCFLOW_READER_CONCURRENCY_CAP must be >= 0")
        _require(
            1 <= self.execution_timeout_s <= 31_622_400,
            "DOCFLOW_EXECUTION_TIMEOUT_S must be 1..31622400 (the service's range)",
        )
        _require(self.stage_timeout_s >= 0, "DOCFLOW_STAGE_TIMEOUT_S must be >= 0")
        _require(
            self.reporter in REPORTERS, f"DOCFLOW_REPORTER must be one of {', '.join(REPORTERS)}"
        )
        _require(self.reconcile_quiet_s >= 0, "DOCFLOW_RECONCILE_QUIET_S must be >= 0")
        _require(self.history_ttl_days >= 1, "DOCFLOW_HISTORY_TTL_DAYS must be >= 1")
        _require(self.review_link_ttl_s >= 60, "DOCFLOW_REVIEW_LINK_TTL_S must be >= 60")
        _require(self.inbox_link_ttl_s >= 60, "DOCFLOW_INBOX_LINK_TTL_S must be >= 60")
        _require(self.review_claim_s >= 10, "DOCFLOW_REVIEW_CLAIM_S must be >= 10")
        _require(
            self.signing_key_source in ("secretsmanager", "ssm", "env"),
            "DOCFLOW_SIGNING_KEY_SOURCE must be secretsmanager, ssm or env",
        )

        _require(
            self.extract_engine in EXTRACT_ENGINES,
            f"DOCFLOW_EXTRACT_ENGINE must be one of {', '.join(EXTRACT_ENGINES)}",
        )
        _require(
            self.enrich_engine in ENRICH_ENGINES,
            f"DOCFLOW_ENRICH_ENGINE must be one of {', '.join(ENRICH_ENGINES)}",
        )
        _require(
            self.packet_engine in PACKET_ENGINES,
            f"DOCFLOW_PACKET_ENGINE must be one of {', '.join(PACKET_ENGINES)}",
        )
        _require(
            self.enrich_tokens_per_minute >= 0, "DOCFLOW_ENRICH_TOKENS_PER_MINUTE must be >= 0"
        )
        _require(
            self.pile_prefix.endswith("/") and not self.pile_prefix.startswith("/"),
            "DOCFLOW_PILE_PREFIX must be a key prefix ending in / (for example backfill/)",
        )

        _require(
            1 <= self.pile_min_records <= self.pile_max_records,
            "DOCFLOW_PILE_MIN_RECORDS must be between 1 and DOCFLOW_PILE_MAX_RECORDS",
        )
        _require(self.pile_max_wait_seconds >= 1, "DOCFLOW_PILE_MAX_WAIT_SECONDS must be >= 1")
        _require(
            24 <= self.pile_job_timeout_hours <= 168,
            "DOCFLOW_PILE_JOB_TIMEOUT_HOURS must be 24..168 (the service's range)",
        )
        _require(
            1 <= self.pile_poll_seconds <= 86_400, "DOCFLOW_PILE_POLL_SECONDS must be 1..86400"
        )
        _require(
            1 <= self.pile_poll_rounds <= 400,
            "DOCFLOW_PILE_POLL_ROUNDS must be 1..400 (each round costs durable operations)",
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            name = "DOCFLOW_" + f.name.upper()
            raw = env.get(name)
            if raw is None or raw == "":
                continue
            values[f.name] = _parse(name, raw, type(getattr(cls, f.name)))
        return cls(**values)  # type: ignore[arg-type]  # each value parsed to its field's type


def _parse(name: str, raw: str, kind: type) -> object:
    try:
        return kind(raw)
    except ValueError as exc:
        raise SettingsError(f"{name}={raw!r} is not a valid {kind.__name__}") from exc


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise SettingsError(message)


# DOCFLOW_* variables read outside `Settings`, each where it is read: the `docflow` command's
# state folder and ports, local key rings, the functions' local host and its fidelity
# switches, and the test kit's and benchmarks' own. With Settings' fields, every variable
# docflow reads: `docflow up` names any other (a misspelt one would change nothing, silently).
OTHER_VARIABLES = frozenset(
    {
        "DOCFLOW_STATE",  # cli: the state folder when --state is not given
        "DOCFLOW_LOCAL_PORT_BASE",  # local/config.py: a new state folder's ports
        "DOCFLOW_SIGNING_KEYS",  # review/access/keys.py: the local key ring
        "DOCFLOW_INTEGRATION_SECRETS",  # review/access/keys.py: local integration secrets
        "DOCFLOW_OCR_BINDING",  # readers/tesseract_engines.py: `cli` forces the binary
        "DOCFLOW_LAMBDA_INVOKE_ENDPOINT",  # aws.py: the local host's Invoke endpoint
        "DOCFLOW_FUNCTION_VERSION",  # local/services/host.py: the version a host runs
        "DOCFLOW_LOCAL_EXTRA_FUNCTIONS",  # local/services/host.py: test functions
        "DOCFLOW_LOCAL_HISTORY_FIDELITY",  # local: the runner's history as AWS writes it
        "DOCFLOW_METRICS_FILE",  # observability: the local dashboard's data points
        "DOCFLOW_OTEL_DIR",  # telemetry: the local span files' folder
        "DOCFLOW_SCREENSHOTS",  # tests/support/screenshots.py: where screenshots go
        "DOCFLOW_CONFORMANCE_LOG",  # conformance/: the suite's stack
        "DOCFLOW_CONFORMANCE_PORT_BASE",
        "DOCFLOW_CONFORMANCE_STATE",
    }
)


def known_variables() -> frozenset[str]:
    """Every DOCFLOW_* variable docflow reads."""
    return frozenset("DOCFLOW_" + f.name.upper() for f in fields(Settings)) | OTHER_VARIABLES


def unknown_variables(environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """The DOCFLOW_* variables of `environ` docflow does not read, each with the known name
    it most resembles (a rules variable without its `_PATH`: `DOCFLOW_RULES_PATH`), or None."""
    known = known_variables()
    tails = {k.removeprefix("DOCFLOW_"): k for k in known}  # the shared prefix says nothing
    out = []
    for name in sorted(n for n in environ if n.startswith("DOCFLOW_") and n not in known):
        close = difflib.get_close_matches(name.removeprefix("DOCFLOW_"), tails, 1, 0.6)
        out.append((name, tails[close[0]] if close else None))
    return out


@lru_cache(maxsize=1)
def load_settings() -> Settings:
    """The process-wide settings; tests call `load_settings.cache_clear()` after changing env."""
    return Settings.from_env()
