"""Steps of a packet's run: plan its parts from page-level calls, then write each part as a PDF
of its own and start the part's run (docs/packets.md).

- `plan parts` (one step, once per file): reads the page texts and words the page batches
  stored, and the page sizes from the PDF; the page engine (`docflow.packets`) calls each
  page; the rules' thresholds make parts and unsure boundaries. The page calls go to S3
  (`storage.packet_plan_key`), the checkpoint keeps the parts, the unsure pages and the key.
- `parts-<i>` (a FLAT map over groups of parts, one step a group): for each part, write its
  PDF under an immutable key named from the packet's version and pages, then start the part's
  run through the intake starter with a name derived from the packet's run and the pages. Both
  are idempotent (the same key, the same name; the local runner's starts are claimed by name),
  so a retried step or a redelivered packet starts nothing twice. A part PDFium cannot write
  (a page it refuses) is recorded as a failed document with its reason; the others go on.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypedDict

from aws_durable_execution_sdk_python import StepContext, durable_step
from aws_durable_execution_sdk_python.config import (
    Duration,
    StepConfig,
)
from aws_durable_execution_sdk_python.retries import RetryStrategyConfig, create_retry_strategy
from aws_durable_execution_sdk_python.serdes import JsonSerDes
from botocore.exceptions import ClientError

from docflow import aws
from docflow.errors import IntakeError
from docflow.ids import DocumentRef, PartOf
from docflow.intake import Starter, build_starter
from docflow.packets import PacketPage, propose
from docflow.packets.factory import build_page_engine
from docflow.pdf import extract_pages, page_sizes
from docflow.pipeline.page_json import PageWords
from docflow.pipeline.results import PacketPlan, Split
from docflow.pipeline.serdes import RecordSerDes
from docflow.readers.base import Word
from docflow.readmodel.schema import make_report
from docflow.readmodel.transitions import FAILED
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime
from docflow.storage import packet_plan_key, page_text_key, page_words_key, part_key

PACKET = "packet"  # the docType of a packet's own run
_RETRIES = create_retry_strategy(
    RetryStrategyConfig(
        max_attempts=4, initial_delay=Duration.from_seconds(2), max_delay=Duration.from_seconds(60)
    )
)
PLAN_STEP = StepConfig(serdes=RecordSerDes(PacketPlan), retry_strategy=_RETRIES)
PARTS_STEP = StepConfig(serdes=JsonSerDes(), retry_strategy=_RETRIES)


def split_stage(stage: Stage, pages: int) -> RoutedStage:
    """The rules' split stage as the run checkpoints it: with the page count every decision
    is checked against (`splitPages`) and the rule that routed the packet there."""
    return RoutedStage(stage, "split-unsure", split_pages=pages)


@durable_step
def plan_packet(step: StepContext, doc: DocumentRef, split: Split) -> PacketPlan:
    rt = runtime()
    pages = _packet_pages(doc, split)
    engine = rt.page_engine or build_page_engine(rt.settings, rt.rules)
    answer = engine.classify(pages)
    rules = rt.rules.packets
    proposal = propose(answer.calls, rules)
    key = packet_plan_key(doc)
    rt.store.put_json(key, {"engine": engine.name, "pages": [c.to_json() for c in answer.calls]})
    stage = None
    if proposal.unsure and rules.stage is not None:
        stage = split_stage(rt.rules.stages[rules.stage], split.pages)
    step.logger.info(
        "packet planned",
        extra={"pages": split.pages, "parts": len(proposal.parts), "unsure": len(proposal.unsure)},
    )
    return PacketPlan(
        engine=engine.name,
        parts=tuple((p.first, p.last, p.doc_type) for p in proposal.parts),
        unsure=proposal.unsure,
        key=key,
        stage=stage,
        usage=dict(answer.usage) or None,
    )


def _packet_pages(doc: DocumentRef, split: Split) -> list[PacketPage]:
    """Every page as the batches stored it (text, words) with its size; refused ones marked."""
    rt = runtime()
    refused = set(split.refused_pages)
    numbers = [n for n in range(1, split.pages + 1) if n not in refused]
    sizes = page_sizes(rt.store.source_bytes(doc, rt.settings.max_bytes), numbers)

    def read(number: int) -> PacketPage:
        text = rt.store.get_text(page_text_key(doc, number))
        rows = _page_words(page_words_key(doc, number)) or {}
        words = tuple(Word.from_row(r) for r in rows.get("words", []))
        return PacketPage(number, text, words, sizes.get(number, (0.0, 0.0)))

    with ThreadPoolExecutor(max_workers=8) as pool:
        read_pages = dict(zip(numbers, pool.map(read, numbers), strict=True))
    return [
        read_pages.get(n) or PacketPage(n, "", readable=False) for n in range(1, split.pages + 1)
    ]


def _page_words(key: str) -> PageWords | None:
    """A page's words: stored only where its engine gave words."""
    try:
        words: PageWords = runtime().store.get_json(key)
    except ClientError as exc:
        if aws.error_code(exc) in ("NoSuchKey", "404"):
            return None
        raise
    return words if isinstance(words, dict) else None


STARTED, EXISTED = "started", "existed"  # a part's run: started now, or found started


class PartDescribed(TypedDict, total=False):
    """A part in its packet's final record: its pages, document id, run id and key, and how
    its run went (`run`: started | existed) or why it could not start (`reason`)."""

    pages: list[int]
    documentId: str
    runId: str
    key: str
    run: str
    reason: str


@dataclass(frozen=True)
class PartsStarted:
    """What became of each part, in page order: `[first, last, "started"]` (or `"existed"`:
    its run had been started already), or `[first, last, reason]` for a part that could not
    be written or started. Compact (about 20 bytes a part) because the map checkpoints them
    all; ids and keys follow from the pages (`part_ref`)."""

    parts: tuple[tuple[int, int, str], ...]

    @property
    def failed(self) -> int:
        return sum(1 for p in self.parts if p[2] not in (STARTED, EXISTED))

    def described(self, packet: DocumentRef) -> list[PartDescribed]:
        """Each part with its document id, run and key (for the packet's final record)."""
        out = []
        for first, last, how in self.parts:
            child = part_ref(packet, first, last)
            said: PartDescribed = {"pages": [first, last], "documentId": child.document_id}
            said |= {"runId": child.run_id, "key": child.key}
            if how in (STARTED, EXISTED):
                said["run"] = how
            else:
                said["reason"] = how
            out.append(said)
        return out


def part_ref(packet: DocumentRef, first: int, last: int) -> DocumentRef:
    """A part as a document: its PDF in the artifact bucket, its run ordered with the packet's
    (a reprocessed packet's parts supersede the earlier parts' runs)."""
    return DocumentRef(
        bucket=runtime().settings.artifact_bucket,
        key=part_key(packet, first, last),
        sequencer=packet.sequencer,
        generation=packet.generation,
        event_time_ms=packet.event_time_ms,
        part=PartOf(packet.document_id, packet.run_id, first, last, packet.key),
    )


@durable_step
def write_and_start(step: StepContext, doc: DocumentRef, group: list[list[int]]) -> list[list[Any]]:
    rt = runtime()
    data = rt.store.source_bytes(doc, rt.settings.max_bytes)
    starter = _starter()
    out: list[list[Any]] = []
    for first, last in group:
        child = part_ref(doc, first, last)
        try:
            body = extract_pages(data, first, last)
        except IntakeError as exc:
            _report_unwritable(child, exc)
            out.append([first, last, exc.reason])
            continue
        aws.client("s3").put_object(
            Bucket=child.bucket, Key=child.key, Body=body, ContentType="application/pdf"
        )
        out.append([first, last, STARTED if starter.start(child) else EXISTED])
    failed = sum(1 for p in out if p[2] not in (STARTED, EXISTED))
    step.logger.info("parts started", extra={"parts": len(group), "failed": failed})
    return out


def _report_unwritable(child: DocumentRef, exc: IntakeError) -> None:
    """The part as a failed document in the read model, with its reason: it has no run of its
    own to say so. Idempotent: the report's event id is fixed by the part's run and status."""
    assert child.part is not None
    payload = {
        "bucket": child.bucket,
        "key": child.key,
        **child.part.payload(),
        "reason": exc.reason,
        "message": exc.message[:500],
    }
    runtime().reporter.report(make_report(child, FAILED, "failed", payload=payload))


_built: Starter | None = None


def _starter() -> Starter:
    """The runtime's starter, or the one the settings name (built once per process)."""
    global _built
    rt = runtime()
    if rt.starter is not None:
        return rt.starter
    if _built is None:
        _built = build_starter(rt.settings.orchestrator_function, rt.settings)
    return _built
