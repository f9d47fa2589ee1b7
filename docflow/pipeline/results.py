"""The orchestrator's step results as small typed records, each with one `to_json` (its
checkpoint's shape, unchanged from the dicts the steps used to return) and one `from_json`.

Checkpointed through `docflow.pipeline.serdes.RecordSerDes`, so a step's checkpoint is byte for
byte what it was when the step returned the dict, and recorded executions replay.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docflow.classify import Classified, Features
from docflow.cost import CostEstimate
from docflow.document import Check, DocumentSummary, Field
from docflow.document.fields import checks_from_json, checks_json, fields_from_json, fields_json
from docflow.document.shown import EnrichShown, IbanShown, RegistryShown
from docflow.pipeline.result_json import (
    BatchJson,
    ClassificationJson,
    ExtractedJson,
    PacketPlanJson,
    ReadingTotals,
    RouteJson,
    SplitJson,
    SupersedingJson,
    WrittenJson,
    registry_of,
)
from docflow.rules.routed import PrivacyHeld, RoutedStage, stages_from_json, stages_json


@dataclass(frozen=True)
class Split:
    """The split step: the document's page count, size and page batches, or why it was refused
    (`ok` false: an answer, not an exception, so bad input is not retried)."""

    ok: bool
    pages: int = 0
    bytes: int = 0
    batches: tuple[tuple[int, int], ...] = ()  # inclusive 1-based page ranges
    reason: str = ""
    message: str = ""
    # Read as a packet (the rules' `[packets]` said so when it started), and the pages PDFium
    # refused in it (each fails its part). Both checkpointed only when set, so an ordinary
    # document's split reads as it always did.
    packet: bool = False
    refused_pages: tuple[int, ...] = ()
    # Active content (`external`, `javascript`, `launch`, `unknown`, `xfa`:
    # docflow/active_content.py): a flag for whoever opens the original, checkpointed only
    # when found, like the two above.
    active_content: tuple[str, ...] = ()
    # An e-invoice (docs/einvoice.md): "xml" (an XML alone, read as one page) or "hybrid" (a
    # PDF carrying its XML, its pages read as any PDF's); checkpointed only when set.
    einvoice: str | None = None

    @classmethod
    def refused(cls, reason: str, message: str) -> Split:
        return cls(ok=False, reason=reason, message=message)

    @property
    def plan(self) -> list[list[int]]:
        """The batches as the steps that read them take them."""
        return [[first, last] for first, last in self.batches]

    def to_json(self) -> SplitJson:
        if not self.ok:
            return {"ok": False, "reason": self.reason, "message": self.message}
        out: SplitJson = {
            "ok": True,
            "pages": self.pages,
            "bytes": self.bytes,
            "batches": self.plan,
        }
        if self.packet:
            out["packet"] = True
        if self.refused_pages:
            out["refusedPages"] = list(self.refused_pages)
        if self.active_content:
            out["activeContent"] = list(self.active_content)
        if self.einvoice:
            out["einvoice"] = self.einvoice
        return out

    @classmethod
    def from_json(cls, raw: SplitJson) -> Split:
        if not raw["ok"]:
            return cls.refused(str(raw["reason"]), str(raw["message"]))
        batches = tuple((int(a), int(b)) for a, b in raw["batches"])
        refused = tuple(int(p) for p in raw.get("refusedPages", []))
        packet = bool(raw.get("packet", False))
        active = tuple(str(k) for k in raw.get("activeContent", []))
        einvoice = str(raw["einvoice"]) if raw.get("einvoice") else None
        return cls(
            True,
            int(raw["pages"]),
            int(raw["bytes"]),
            batches,
            "",
            "",
            packet,
            refused,
            active,
            einvoice,
        )


@dataclass(frozen=True)
class Classification:
    """The classify step: the document's type and how sure, the sensitive kinds it holds, the
    review stages it routes to, whether its type has fields to extract, the privacy stage held
    back for extraction to judge (IBANs that may be the issuer's), and the reading's summary
    (`reading`: pages, characters, engines, OCR confidence)."""

    doc_type: str
    confidence: float
    sensitive: dict[str, int]
    low_confidence: bool
    stages: tuple[RoutedStage, ...]
    extract: bool
    reading: ReadingTotals
    privacy_held: PrivacyHeld | None = None

    def document(self) -> DocumentSummary:
        """The document's record as classify starts it: what travels with the document to
        reviewers and into its record."""
        return DocumentSummary(
            doc_type=self.doc_type,
            confidence=self.confidence,
            sensitive=self.sensitive,
            low_confidence=self.low_confidence,
            pages=self.reading["pages"],
            engines=self.reading["engines"],
        )

    def to_json(self) -> ClassificationJson:
        own: Classified = {
            "docType": self.doc_type,
            "confidence": self.confidence,
            "sensitive": self.sensitive,
            "lowConfidence": self.low_confidence,
            "stages": stages_json(self.stages),
            "extract": self.extract,
        }
        if self.privacy_held:
            own["privacyHeld"] = self.privacy_held
        return {**own, **self.reading}

    @classmethod
    def from_json(cls, raw: ClassificationJson) -> Classification:
        reading = ReadingTotals(
            pages=raw["pages"],
            chars=raw["chars"],
            engines=raw["engines"],
            ocrConfidence=raw["ocrConfidence"],
        )
        return cls(
            doc_type=str(raw["docType"]),
            confidence=raw["confidence"],
            sensitive=dict(raw["sensitive"]),
            low_confidence=bool(raw["lowConfidence"]),
            stages=stages_from_json(raw["stages"]),
            extract=bool(raw["extract"]),
            reading=reading,
            privacy_held=raw.get("privacyHeld"),
        )


@dataclass(frozen=True)
class Superseding:
    """The supersede step: whether this run is its document's newest, and how many older
    runs' waits it ended."""

    latest: bool
    ended: int = 0

    def to_json(self) -> SupersedingJson:
        return {"latest": self.latest, "ended": self.ended}

    @classmethod
    def from_json(cls, raw: SupersedingJson) -> Superseding:
        return cls(bool(raw["latest"]), int(raw.get("ended", 0)))


@dataclass(frozen=True)
class Failure:
    """Why a part of the run failed: a reason code for the read model and a message."""

    reason: str
    message: str


@dataclass(frozen=True)
class BatchSummary:
    """One page batch as the `batch-<i>` step summed it up: its pages, characters, pages by
    engine, the OCR'd pages and their summed confidence, and the detectors' merged features.
    Checkpointed inside the map's result as `to_json()`, the dict the step returns."""

    pages: int
    chars: int
    engines: dict[str, int]
    ocr_pages: int
    ocr_confidence_sum: float
    features: Features

    def to_json(self) -> BatchJson:
        return {
            "pages": self.pages,
            "chars": self.chars,
            "engines": dict(self.engines),
            "ocrPages": self.ocr_pages,
            "ocrConfidenceSum": self.ocr_confidence_sum,
            "features": self.features,
        }

    @classmethod
    def from_json(cls, raw: BatchJson) -> BatchSummary:
        return cls(
            pages=int(raw["pages"]),
            chars=int(raw["chars"]),
            engines={str(k): int(v) for k, v in raw["engines"].items()},
            ocr_pages=int(raw["ocrPages"]),
            ocr_confidence_sum=raw["ocrConfidenceSum"],
            features=raw["features"],
        )


@dataclass(frozen=True)
class Reading:
    """Every page batch's summary in page order, or the first failure. Not a checkpoint of
    its own: the map's result is (`serdes.BatchResultJson`)."""

    results: tuple[BatchSummary, ...] = ()
    error: Failure | None = None


@dataclass(frozen=True)
class Extracted:
    """The extract step: the fields as `{name: {value, confidence, page, box}}`, the checks
    that failed, the review stages they add, the full answer's S3 key, what the engine spent
    (`usage`, as the meter counts it) and what the supplier registry adds to the summary
    (`shown`: `supplier`, `ibans`, `taxIds`, `profileFields`, each when it has anything).
    A type without fields has no key nor usage, and its checkpoint has neither."""

    fields: dict[str, Field]
    checks: tuple[Check, ...] = ()
    stages: tuple[RoutedStage, ...] = ()
    key: str | None = None
    usage: dict[str, int] | None = None
    shown: RegistryShown = field(default_factory=RegistryShown)

    @property
    def shadow(self) -> dict[str, str | None]:
        """The learned layout's shadow read (field -> value), kept in the run for the learn
        step to grade and never in the summary (`docflow.suppliers.hook`)."""
        return dict(self.shown.get("shadow") or {})

    @property
    def ibans(self) -> list[IbanShown]:
        """The IBANs the registry judged (whose each is), for `issuer_iban_privacy`."""
        return list(self.shown.get("ibans") or [])

    def to_json(self) -> ExtractedJson:
        out: ExtractedJson = {
            "fields": fields_json(self.fields),
            "checks": checks_json(self.checks),
            "stages": stages_json(self.stages),
        }
        if self.key is not None:
            out["key"] = self.key
        if self.usage is not None:
            out["usage"] = self.usage
        return {**out, **self.shown}

    @classmethod
    def from_json(cls, raw: ExtractedJson) -> Extracted:
        return cls(
            fields=fields_from_json(raw["fields"]),
            checks=checks_from_json(raw.get("checks")),
            stages=stages_from_json(raw.get("stages") or ()),
            key=raw.get("key"),
            usage=raw.get("usage"),
            shown=registry_of(raw),
        )


@dataclass(frozen=True)
class Route:
    """The `route after triage` step: the picked type's own review stages, and whether it
    has fields to extract."""

    stages: tuple[RoutedStage, ...]
    extract: bool

    def to_json(self) -> RouteJson:
        return {"stages": stages_json(self.stages), "extract": self.extract}

    @classmethod
    def from_json(cls, raw: RouteJson) -> Route:
        return cls(stages_from_json(raw["stages"]), bool(raw["extract"]))


@dataclass(frozen=True)
class Written:
    """The finalize and archive steps: the record's S3 key and the run's cost (None when the
    run was not metered)."""

    key: str
    cost: CostEstimate | None

    def to_json(self) -> WrittenJson:
        return {"key": self.key, "cost": self.cost}

    @classmethod
    def from_json(cls, raw: WrittenJson) -> Written:
        return cls(str(raw["key"]), raw.get("cost"))


@dataclass(frozen=True)
class Enrichment:
    """What the enrich pass adds to the run: `for_summary`, the small part the document's
    summary takes (title and abstract, risk, how it was made; its steps checkpoint it under
    `shown`), the review stages a high risk adds, and the model usage it spent."""

    for_summary: EnrichShown
    stages: tuple[RoutedStage, ...]
    usage: dict[str, int]


@dataclass(frozen=True)
class PacketPlan:
    """The plan step of a packet: the parts it proposes (first and last page, the engine's type
    guess), the pages whose boundary is unsure, the split stage that decides them (from the
    rules when the packet started; None when nothing is unsure or the rules name no stage), the
    key of the page calls in S3, the engine and what it spent. Keys and counts only: the page
    calls are in S3."""

    engine: str
    parts: tuple[tuple[int, int, str], ...]
    unsure: tuple[int, ...]
    key: str
    stage: RoutedStage | None = None
    usage: dict[str, int] | None = None

    @property
    def ranges(self) -> list[list[int]]:
        return [[first, last] for first, last, _ in self.parts]

    def to_json(self) -> PacketPlanJson:
        out: PacketPlanJson = {
            "engine": self.engine,
            "parts": [list(p) for p in self.parts],
            "unsure": list(self.unsure),
            "key": self.key,
        }
        if self.stage is not None:
            out["stage"] = self.stage.to_json()
        if self.usage:
            out["usage"] = self.usage
        return out

    @classmethod
    def from_json(cls, raw: PacketPlanJson) -> PacketPlan:
        return cls(
            engine=str(raw["engine"]),
            parts=tuple((int(a), int(b), str(t)) for a, b, t in raw["parts"]),
            unsure=tuple(int(p) for p in raw["unsure"]),
            key=str(raw["key"]),
            stage=RoutedStage.from_json(raw["stage"]) if raw.get("stage") else None,
            usage={str(k): int(v) for k, v in (raw.get("usage") or {}).items()} or None,
        )
