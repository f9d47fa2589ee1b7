"""The JSON of each step result's checkpoint (`results.py`: each record's `to_json` writes it,
its `from_json` reads it), key by key in the order it is written. The recorded histories under
tests/pipeline/ hold these shapes byte for byte; a key renamed here is a type error there, and
a change of shape a new history to record (docs/versions.md)."""

from __future__ import annotations

from typing import Required, TypedDict, final

from docflow.classify import Classified, Features
from docflow.cost import CostEstimate
from docflow.document.fields import CheckJson
from docflow.document.shown import FieldValue, RegistryShown
from docflow.rules.routed import RoutedStageJson


class SplitJson(TypedDict, total=False):
    """`split`: refused (`ok` false, a reason code and a message), or the page count, size and
    batches; a packet's flag, the pages PDFium refused, the active content and an
    e-invoice's kind only when set."""

    ok: bool
    reason: str
    message: str
    pages: int
    bytes: int
    batches: list[list[int]]
    packet: bool
    refusedPages: list[int]
    activeContent: list[str]
    einvoice: str


class ReadingTotals(TypedDict):
    """What the read batches add up to (`classify.summarize_batches`): pages, characters,
    pages read by each engine, and the mean OCR confidence (None: no page was OCR'd)."""

    pages: int
    chars: int
    engines: dict[str, int]
    ocrConfidence: float | None


class ClassificationJson(Classified, ReadingTotals):
    """`classify`: the classifier's answer, then what the reading added up to."""


class SupersedingJson(TypedDict):
    """`supersede`: whether this run is its document's newest, and the older waits it ended."""

    latest: bool
    ended: int


@final
class BatchJson(TypedDict):
    """`batch-<i>`: one page batch summed up (the map's item)."""

    pages: int
    chars: int
    engines: dict[str, int]
    ocrPages: int
    ocrConfidenceSum: float
    features: Features  # the classifier's counts over the batch's pages


class FailureJson(TypedDict):
    reason: str
    message: str


@final
class BatchRefusedJson(TypedDict):
    """`batch-<i>` of a batch with a page it could not read: an answer, not an exception, so
    the map does not retry it (`pages_or_error` fails the document with its reason)."""

    batch: int
    error: FailureJson


class ExtractedJson(RegistryShown, total=False):
    """`extract`: the fields (masked), the checks, the stages they add, the full answer's key
    and what the engine spent (neither for a type without fields), then what the supplier
    registry added (`RegistryShown`'s keys, each only when it has anything)."""

    fields: Required[dict[str, FieldValue]]
    checks: Required[list[CheckJson]]
    stages: Required[list[RoutedStageJson]]
    key: str
    usage: dict[str, int]


def registry_of(raw: ExtractedJson) -> RegistryShown:
    """The registry's part of an `extract` checkpoint."""
    shown = RegistryShown()
    if "supplier" in raw:
        shown["supplier"] = raw["supplier"]
    if "layout" in raw:
        shown["layout"] = raw["layout"]
    if "ibans" in raw:
        shown["ibans"] = raw["ibans"]
    if "taxIds" in raw:
        shown["taxIds"] = raw["taxIds"]
    if "bank" in raw:
        shown["bank"] = raw["bank"]
    if "profileFields" in raw:
        shown["profileFields"] = raw["profileFields"]
    if "shadow" in raw:
        shown["shadow"] = raw["shadow"]
    return shown


class RouteJson(TypedDict):
    """`route after triage`: the picked type's stages and whether it has fields to read."""

    stages: list[RoutedStageJson]
    extract: bool


class WrittenJson(TypedDict):
    """`finalize` and `archive`: the record's key and the run's cost (None: not metered)."""

    key: str
    cost: CostEstimate | None


class PacketPlanJson(TypedDict, total=False):
    """A packet's `plan`: its parts (first and last page, the type guessed), the unsure
    boundaries, the key of the page calls, the engine; the split stage and usage when set."""

    engine: str
    parts: list[list[int | str]]
    unsure: list[int]
    key: str
    stage: RoutedStageJson
    usage: dict[str, int]
