"""The rules file's model: document types (keywords, patterns, title words), the review stages
and their policies, the sensitive-data detectors to count, the `[fields]` table, and the checks
that refuse a bad file at start-up (naming the file and the stage). Read once per process
(`docflow.runtime.runtime().rules`); the classifier (`docflow.classify`) only applies it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docflow.extract.checks.spec import NO_FIELDS, FieldRules, parse_field_rules
from docflow.rules.controls import NO_CONTROLS, ControlRules, parse_control_rules
from docflow.rules.detectors import DETECTORS
from docflow.rules.matching import BILLS, CREDITS, NO_MATCHING, MatchRules, parse_match_rules
from docflow.rules.packets import NO_PACKETS, PacketRules, parse_packet_rules
from docflow.rules.people import NO_PEOPLE, People, parse_people
from docflow.rules.stage_json import StageJson
from docflow.settings import Settings, SettingsError

DEFAULT_RULES = Path(__file__).with_name("rules.toml")
TITLE_WEIGHT = 4
DIGEST_EVERY_S = 24 * 3600
NOTIFY_MODES = ("each", "digest")


# A stage's timers become durable waits (rounds); this bounds the rounds, and so the operations.
MAX_REMINDERS = 10


@dataclass(frozen=True)
class Stage:
    """A review stage. The policy fields are optional: without them the first reviewer to
    decide decides the stage, nobody is reminded and nobody is escalated to (0 = off)."""

    name: str
    reviewers: tuple[str, ...]
    timeout_seconds: int
    heartbeat_seconds: int
    quorum: int = 0  # approvals needed; 0 = the first decision (approve or reject) decides
    remind_after_seconds: int = 0
    max_reminders: int = 0
    escalate_after_seconds: int = 0
    escalate_to: tuple[str, ...] = ()
    # How reviewers hear of it: "each" (a mail per document) or "digest" (one mail per
    # digest period, reminders and escalations folded in); `digest` names the stage's
    # reviewers whose own [reviewers."<address>"] entry says notify = "digest".
    notify: str = "each"
    digest: tuple[str, ...] = ()

    def to_dict(self) -> StageJson:
        out: StageJson = {
            "name": self.name,
            "reviewers": list(self.reviewers),
            "timeoutSeconds": self.timeout_seconds,
            "heartbeatSeconds": self.heartbeat_seconds,
        }
        # Only what is set, so a stage without a policy checkpoints as it always did.
        if self.quorum:
            out["quorum"] = self.quorum
        if self.remind_after_seconds and self.max_reminders:
            out["remindAfterSeconds"] = self.remind_after_seconds
            out["maxReminders"] = self.max_reminders
        if self.escalate_after_seconds and self.escalate_to:
            out["escalateAfterSeconds"] = self.escalate_after_seconds
            out["escalateTo"] = list(self.escalate_to)
        if self.notify != "each":
            out["notify"] = self.notify
        if self.digest:
            out["digest"] = list(self.digest)
        return out


@dataclass(frozen=True)
class DocType:
    name: str
    keywords: tuple[re.Pattern[str], ...]
    patterns: tuple[re.Pattern[str], ...]
    min_hits: int
    stages: tuple[str, ...]
    # A title word of a type of its own (`Credit note`) counts this many times, so that it
    # outweighs the invoice words such a document also prints.
    weight: int = 1
    # A document's title alone on its line (`PURCHASE ORDER`) counts TITLE_WEIGHT times.
    titles: tuple[re.Pattern[str], ...] = ()

    def hits(self, text: str) -> int:
        found = sum(len(p.findall(text)) for p in (*self.keywords, *self.patterns))
        return self.weight * found + TITLE_WEIGHT * sum(len(t.findall(text)) for t in self.titles)


@dataclass(frozen=True)
class Rules:
    types: tuple[DocType, ...]
    stages: Mapping[str, Stage]
    detectors: tuple[str, ...]
    review_on: tuple[str, ...]
    sensitive_stage: str | None
    min_confidence: float
    quality_stage: str | None
    fields: FieldRules = NO_FIELDS
    # The stage a high risk (or an enrichment the model could not complete) adds.
    risk_stage: str | None = None
    # Tesseract's `-l`: the languages the OCR reads with, `eng+deu+...`.
    ocr_languages: str = "eng"
    # `[ocr] identify`: read each scan with the language an identifier finds on a first pass
    # (readers/languages) instead of the whole list. Off by default: on the real labelled
    # scans it read 4 points worse than the whole list (docs/ocr-languages.md).
    ocr_identify: bool = False
    # A document no type fits, or whose best type holds less than `triage_min_confidence` of
    # the hits, goes to this stage (if the rules name one) instead of being finalized.
    triage_stage: str | None = None
    triage_min_confidence: float = 0.0
    # The digest's period, and every reviewer who takes one (by a stage or their own entry).
    digest_every_seconds: int = DIGEST_EVERY_S
    digest_reviewers: tuple[str, ...] = ()
    # The addresses `[reviewers."<address>"]` entries name.
    reviewer_entries: tuple[str, ...] = ()
    # Types whose issuer's own IBAN is expected content, not a privacy finding (issue 36):
    # for them an IBAN alone holds the sensitive stage back until extraction has judged whose
    # each IBAN is (`docflow.suppliers.ownership`). `[]` restores the plain rule.
    issuer_iban_types: tuple[str, ...] = ()
    # `[packets]`: which uploads hold several documents, and how sure a boundary must be.
    packets: PacketRules = NO_PACKETS
    # `[suppliers]`, `[audit]`, `[duplicates]`: the payment controls (docflow.rules.controls).
    controls: ControlRules = NO_CONTROLS
    # `[people]`: each reviewer's address and the operator principals of the same person, so
    # that four eyes on the supplier master meet across the two (docflow.rules.people).
    people: People = NO_PEOPLE
    # `[matching]`: invoices matched to their orders and receipts, waiting for them first.
    matching: MatchRules = NO_MATCHING

    def addresses(self) -> frozenset[str]:
        """Every address the rules name: a stage's reviewers and escalate_to, and the
        `[reviewers]` entries. Only these get an inbox link."""
        staged = {a for s in self.stages.values() for a in (*s.reviewers, *s.escalate_to)}
        return frozenset(staged | set(self.reviewer_entries))

    def longest_review_seconds(self) -> int:
        """The longest any document can wait on reviewers, summed over its stages, and on the
        documents an invoice waits for before them (`[matching]`)."""
        stages = (self.triage_stage, self.sensitive_stage, self.quality_stage, self.risk_stage)
        extra = [s for s in stages if s]
        fields = [self.fields.stage] if self.fields.stage else []
        fields += list(self.controls.stages)  # a typed document's bank, duplicate, audit checks
        waits = [
            (
                (*t.stages, *extra, *(fields if t.name in self.fields.types else []), *matched),
                self.matching.longest_wait_seconds if matched else 0,
            )
            for t in self.types
            for matched in [self._match(t.name)]
        ] or [(tuple(extra), 0)]
        longest = max(
            sum(self.stages[name].timeout_seconds for name in dict.fromkeys(path)) + wait
            for path, wait in waits
        )
        # A packet's own run waits on its split stage only; its parts are documents of their own.
        split = self.packets.stage
        return max(longest, self.stages[split].timeout_seconds if split else 0)

    def _match(self, doc_type: str) -> tuple[str, ...]:
        """The match stage, for a type with fields that bills or gives back against an order:
        such a document waits for its order (and receipts) first, then may wait there."""
        stage = self.matching.stage
        billing = doc_type in (*BILLS, *CREDITS) and doc_type in self.fields.types
        return (stage,) if stage and billing else ()


def _stage(name: str, spec: dict[str, Any], stage_timeout_s: int, digest_people: set[str]) -> Stage:
    timeout = stage_timeout_s or int(spec["timeout_seconds"])
    remind = int(spec.get("remind_after_seconds", 0))
    everyone = [*spec["reviewers"], *spec.get("escalate_to", [])]
    return Stage(
        name=name,
        reviewers=tuple(spec["reviewers"]),
        timeout_seconds=timeout,
        heartbeat_seconds=min(int(spec.get("heartbeat_seconds", 0)), timeout),
        quorum=int(spec.get("quorum", 0)),
        remind_after_seconds=remind,
        # Reminding without saying how often means once.
        max_reminders=int(spec.get("max_reminders", 1 if remind else 0)),
        escalate_after_seconds=int(spec.get("escalate_after_seconds", 0)),
        escalate_to=tuple(spec.get("escalate_to", [])),
        notify=str(spec.get("notify", "each")),
        digest=tuple(r for r in everyone if r in digest_people),
    )


def _digest_period(raw: dict[str, Any]) -> int:
    period = int(raw.get("digest_every_seconds", DIGEST_EVERY_S))
    if period < 60:
        raise ValueError("digest_every_seconds must be at least 60")
    return period


def _keyword(word: str) -> re.Pattern[str]:
    return re.compile(r"\b" + r"\s+".join(map(re.escape, word.split())) + r"\b", re.IGNORECASE)


def _title(word: str) -> re.Pattern[str]:
    words = r"\s+".join(map(re.escape, word.split()))
    return re.compile(rf"^[ \t]*{words}[ \t]*$", re.IGNORECASE | re.MULTILINE)


def _said(exc: Exception) -> str:
    """A loader's refusal as a person reads it: a declaration's message names its line
    (`line 6: fields.types...`), a missing key is named as such; never a Python repr."""
    if isinstance(exc, KeyError):
        return f"a required key is missing: {exc.args[0] if exc.args else exc}"
    if isinstance(exc, TypeError):
        return f"a value has the wrong type ({exc})"
    return str(exc)


def load_rules(path: str | Path | None = None, stage_timeout_s: int = 0) -> Rules:
    """Load and validate a rules file; every mistake is a SettingsError naming the file."""
    source = Path(path) if path else DEFAULT_RULES
    try:
        text = source.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"rules file {source}: {exc}") from exc
    try:
        people = raw.get("reviewers", {})
        for address, spec in people.items():
            if spec.get("notify", "each") not in NOTIFY_MODES:
                raise ValueError(f"reviewer {address!r}: notify must be 'each' or 'digest'")
        digest_people = {a for a, spec in people.items() if spec.get("notify") == "digest"}
        stages = {
            name: _stage(name, spec, stage_timeout_s, digest_people)
            for name, spec in raw.get("stages", {}).items()
        }
        triage = dict(raw.get("triage", {}))
        triage_min = float(triage.pop("min_confidence", 0.0))
        if not 0.0 <= triage_min <= 1.0:
            raise ValueError("triage.min_confidence must be 0..1")
        if triage:
            stages["triage"] = _stage("triage", triage, stage_timeout_s, digest_people)
        takers = {r for s in stages.values() for r in s.digest}
        takers |= {
            r
            for s in stages.values()
            if s.notify == "digest"
            for r in (*s.reviewers, *s.escalate_to)
        }
        types = tuple(
            DocType(
                name=spec["name"],
                keywords=tuple(_keyword(k) for k in spec.get("keywords", [])),
                patterns=tuple(re.compile(p) for p in spec.get("patterns", [])),
                min_hits=int(spec.get("min_hits", 1)),
                stages=tuple(spec.get("stages", [])),
                weight=int(spec.get("weight", 1)),
                titles=tuple(_title(t) for t in spec.get("titles", [])),
            )
            for spec in raw.get("document_types", [])
        )
        sensitive = raw.get("sensitive", {})
        quality = raw.get("quality", {})
        languages = list(raw.get("ocr", {}).get("languages", ["eng"]))
        if not languages or not all(re.fullmatch(r"[a-z_]{3,16}", x) for x in languages):
            raise ValueError("ocr.languages: tesseract language names, e.g. ['eng', 'deu']")
        rules = Rules(
            types=types,
            stages=stages,
            detectors=tuple(sensitive.get("detectors", DETECTORS)),
            review_on=tuple(sensitive.get("review_on", [])),
            sensitive_stage=sensitive.get("stage"),
            min_confidence=float(quality.get("min_confidence", 0.0)),
            quality_stage=quality.get("stage"),
            fields=parse_field_rules(raw.get("fields"), text),
            risk_stage=raw.get("risk", {}).get("stage"),
            ocr_languages="+".join(languages),
            ocr_identify=bool(raw.get("ocr", {}).get("identify", False)),
            triage_stage="triage" if triage else None,
            triage_min_confidence=triage_min,
            digest_every_seconds=_digest_period(raw),
            digest_reviewers=tuple(sorted(takers)),
            reviewer_entries=tuple(people),
            issuer_iban_types=tuple(sensitive.get("issuer_iban_types", [])),
            packets=parse_packet_rules(raw.get("packets")),
            controls=parse_control_rules(raw),
            people=parse_people(raw.get("people"), text),
            matching=parse_match_rules(raw.get("matching"), stage_timeout_s),
        )
    except (KeyError, TypeError, ValueError, re.error) as exc:
        raise SettingsError(f"rules file {source}: {_said(exc)}") from exc
    _validate(rules, source)
    return rules


def _validate(rules: Rules, source: Path) -> None:
    named = [s for t in rules.types for s in t.stages]
    named += [
        s
        for s in (
            rules.sensitive_stage,
            rules.quality_stage,
            rules.fields.stage,
            rules.risk_stage,
            rules.packets.stage,
            *rules.controls.stages,
            rules.matching.stage,
        )
        if s
    ]
    known_types = {t.name for t in rules.types}
    _validate_iban_types(rules, source)
    for doc_type in rules.fields.types:
        if doc_type not in known_types:
            raise SettingsError(f"rules file {source}: fields for unknown type {doc_type!r}")
    if rules.fields.types and not rules.fields.stage:
        raise SettingsError(f"rules file {source}: [fields] needs a review stage")
    for name in named:
        if name not in rules.stages:
            raise SettingsError(f"rules file {source}: stage {name!r} is used but not defined")
    for stage in rules.stages.values():
        if not stage.reviewers:
            raise SettingsError(f"rules file {source}: stage {stage.name!r} has no reviewers")
        if stage.timeout_seconds < 1:
            raise SettingsError(f"rules file {source}: stage {stage.name!r} needs a timeout")
        if not 0 <= stage.heartbeat_seconds <= stage.timeout_seconds:
            raise SettingsError(
                f"rules file {source}: stage {stage.name!r} heartbeat must be 0..timeout"
            )
        problem = _policy_problem(stage)
        if problem:
            raise SettingsError(f"rules file {source}: stage {stage.name!r}: {problem}")
    for detector in (*rules.detectors, *rules.review_on):
        if detector not in DETECTORS:
            raise SettingsError(f"rules file {source}: unknown detector {detector!r}")


def _validate_iban_types(rules: Rules, source: Path) -> None:
    for doc_type in rules.issuer_iban_types:
        if doc_type not in rules.fields.types:
            raise SettingsError(
                f"rules file {source}: sensitive.issuer_iban_types names {doc_type!r}, "
                "which has no [fields] (only a type with fields has an issuer to judge)"
            )


def _policy_problem(stage: Stage) -> str:
    """What is wrong with a stage's quorum, reminders, escalation or notice, or ""."""
    if stage.notify not in NOTIFY_MODES:
        return "notify must be 'each' or 'digest'"
    if stage.quorum and not 1 <= stage.quorum <= len(stage.reviewers):
        return f"quorum must be between 1 and its {len(stage.reviewers)} reviewers"
    if stage.remind_after_seconds < 0 or stage.max_reminders < 0:
        return "remind_after_seconds and max_reminders cannot be negative"
    if stage.max_reminders and not stage.remind_after_seconds:
        return "max_reminders needs remind_after_seconds"
    if stage.max_reminders > MAX_REMINDERS:
        return f"max_reminders is at most {MAX_REMINDERS}"
    last = stage.remind_after_seconds * stage.max_reminders
    if last and last >= stage.timeout_seconds:
        return (
            f"the last reminder ({stage.max_reminders} x {stage.remind_after_seconds} s) must "
            f"come before the stage timeout ({stage.timeout_seconds} s)"
        )
    if bool(stage.escalate_after_seconds) != bool(stage.escalate_to):
        return "escalate_after_seconds and escalate_to go together"
    if stage.escalate_after_seconds and not (
        0 < stage.escalate_after_seconds < stage.timeout_seconds
    ):
        return (
            f"escalate_after_seconds ({stage.escalate_after_seconds} s) must be below the "
            f"stage timeout ({stage.timeout_seconds} s)"
        )
    if set(stage.escalate_to) & set(stage.reviewers) or len(set(stage.escalate_to)) < len(
        stage.escalate_to
    ):
        return "escalate_to must name reviewers not already in the stage, once each"
    if len(set(stage.reviewers)) < len(stage.reviewers):
        return "a reviewer is listed twice"
    return ""


def check_against_settings(rules: Rules, settings: Settings) -> None:
    """ExecutionTimeout must outlast the longest review path, or a slow reviewer kills runs."""
    longest = rules.longest_review_seconds()
    # Reading and finalizing need time too; keep an hour beyond the reviews.
    if longest + 3600 > settings.execution_timeout_s:
        raise SettingsError(
            f"DOCFLOW_EXECUTION_TIMEOUT_S={settings.execution_timeout_s} does not exceed the "
            f"longest review path ({longest} s) plus an hour for the pipeline itself"
        )
