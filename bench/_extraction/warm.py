"""The `warm` figure: the labelled real set replayed in order against a registry that fills.

Each supplier's first document (suppliers told apart by the truth's vendor name) is the one a
person reviews: it is registered with the checked ids and issuer IBANs its pages show (what
the review page's "add this supplier" does) and taught to its profile with its truth as the
corrections, through the pipeline's own learn step. Every later document of a known supplier
is measured, through the same step bodies as the cold run (split, read, classify, extract),
now with the registry and the profiles consulted, under the rules file's `[suppliers]
min_confirmations` (the bench runs this with 1 and with 2). As in production, a later
document a person reviewed (a `fields` stage) teaches the profile too, with its truth; one
read on the profile with no stage goes through the audit sampler (`audit sample`, the
shipped `[audit]` rate, drawn by the stack's secret), and an audited one is a person's
check that teaches as well:

    documents          later documents measured (a supplier's first one is not)
    suppliers          suppliers registered on the way
    matched            share of measured documents whose supplier was matched by a checked id
    straight_through   share finalized with no review stage of any kind and every printed
                       field right
    review_rate        share given any review stage (the audit's included)
    audit_rate         share sent to the audit stage
    fields_review_rate share given a `fields`/`triage` stage
    silent_wrong       present values that are wrong, in documents whose fields no person
                       checked
    silent_missing     printed fields absent, in such documents
    cold_straight_through   the same documents' straight-through in the cold run
    straight_through_but_audit   share with no stage but the audit's and every printed
                       field right (what the reading earned before the sampler took some)
    matched_by         {how: documents}: the measured documents' supplier matches (a checked
                       id's kind, "iban", "fingerprint", "name"; "none")

`by_name` (the `2+names` figure): every supplier is in the registry by its name even where its
first document prints no checked id of its own (an operator imported it: an accounts-payable
team's supplier master is complete), so a supplier matched by name learns from its reviews
(`route.learning_due`) and is recognized afterwards by its layout's fingerprint with its name.
Without it, as before issue 47, a supplier whose first document prints no checked id is
registered by name but never taught.

`_details` (popped by the bench, printed with --verbose): per measured document, whether it
was reviewed, matched by which id, the fields the profile read, the checks, the fields off.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from _extraction.generated import Document
from _extraction.held import held_by
from _extraction.reads import ReadCache
from _extraction.scoring import judge
from _extraction.step import BenchStep, run_document
from docflow.document import DocumentSummary
from docflow.extract.base import PageInput
from docflow.extract.declarations.labels import BUILTIN_KINDS as FIELD_KINDS
from docflow.extract.rules_engine.engine import layout_of
from docflow.ids import DocumentRef
from docflow.pipeline.extract_pages import manifest_pages, page_words
from docflow.runtime import runtime
from docflow.storage import page_text_key
from docflow.suppliers import history
from docflow.suppliers.model import Supplier, SupplierError, slug
from docflow.suppliers.ownership import ISSUER, judge_ibans
from docflow.suppliers.store import ClaimConflict, SupplierStore
from docflow.suppliers.trust import same_value

REVIEWER = "bench@example.com"


def _run(
    doc: Document, bucket: str, reads: ReadCache | None
) -> tuple[DocumentRef, list[list[int]], dict[str, Any]]:
    return run_document(doc, bucket, reads, prefix="bench-warm", sequencer="02")


def _issuer_ibans(ref: DocumentRef, plan: list[list[int]]) -> list[str]:
    rt = runtime()
    pages = [
        PageInput(
            page=p["page"],
            text=rt.store.get_text(p.get("key") or page_text_key(ref, p["page"])),
            engine=p["engine"],
            confidence=float(p["confidence"]),
            words=page_words(p),
        )
        for p in manifest_pages(ref, plan, rt.classifier.rules.fields.max_pages)  # type: ignore[attr-defined]
    ]
    layouts = [layout_of(p) for p in pages]
    return [i.value for i in judge_ibans(layouts, None) if i.valid and i.owner == ISSUER]


def _register(
    store: SupplierStore,
    name: str,
    result: dict[str, Any],
    ibans: list[str],
    doc_currency: str | None = None,
    by_name: bool = False,
) -> str | None:
    """Add the supplier with the ids its first document shows; an id another supplier holds
    already (a customer's, printed on both) is left out. Its id when it is to be taught: with
    a checked id, or `by_name`."""
    ids: dict[str, list[str]] = {}
    for t in result.get("taxIds") or []:
        if t.get("valid"):
            ids.setdefault(t["kind"], []).append(t["value"])
    if ibans:
        ids["iban"] = ibans
    # The reviewer confirms the currency with the rest of the first document's fields.
    currency = doc_currency or (result["fields"].get("currency") or {}).get("value") or ""
    base = {"supplierId": slug(name), "name": name, "currency": currency}
    try:
        supplier = Supplier.parse({**base, "ids": ids})
    except SupplierError:
        supplier = Supplier.parse(base)
    for conflict in store.conflicts([supplier]):
        kind, _, value = conflict.key.partition(":")
        left = tuple(v for v in supplier.ids.get(kind, ()) if v != value)
        supplier = Supplier.parse(
            {**supplier.to_json(), "ids": {**supplier.to_json()["ids"], kind: list(left)}}
        )
    try:
        store.put(supplier, history.entry(supplier.supplier_id, history.IMPORTED, "bench"))
    except ClaimConflict:
        return None
    return supplier.supplier_id if supplier.ids or by_name else None


def _teach(
    ref: DocumentRef,
    plan: list[list[int]],
    doc: Document,
    result: dict[str, Any],
    stage: str,
) -> bool:
    """A person's approved review (a `fields` stage, or the `audit`), the truth as the
    corrections, taught as the orchestrator teaches: `learning_due` on the run's route and
    summary, then the learn step with `lesson_of` its lesson. Whether it taught."""
    from docflow.pipeline.learn import learn_supplier, lesson_of
    from docflow.rules.routed import RoutedStage, stages_from_json
    from docflow.suppliers.route import learning_due

    # A field the truth file does not score is taken as the reviewer saw it (approved as read).
    fields: dict[str, Any] = {
        k: v for k, v in result["fields"].items() if k not in doc.truth and v.get("value")
    }
    for name, truth in doc.truth.items():
        got = result["fields"].get(name) or {}
        if truth is None or name not in FIELD_KINDS:
            continue
        fields[name] = {**got, "value": truth}
        if got.get("value") != truth:
            fields[name].update(original=got.get("value"), correctedBy=REVIEWER)
    summary = {
        "docType": doc.doc_type,
        "supplier": result.get("supplier") or {},
        "layout": result.get("layout") or {"status": "none"},
        "fields": fields,
        "profileFields": result.get("profileFields") or [],
    }
    typed = DocumentSummary.from_json(summary)
    stages = list(stages_from_json(result["stages"]))
    if stage not in {s.name for s in stages}:
        stages.append(RoutedStage.of(runtime().rules.stages[stage], stage))
    decided = [{"stageName": stage, "decision": "approved", "reviewer": REVIEWER}]
    if not learning_due(typed, stages, decided):
        return False
    lesson = lesson_of(typed, result.get("shadow") or {}, stages, decided)
    learn_supplier(ref, lesson, plan)(BenchStep())
    return True


def _audited(ref: DocumentRef, result: dict[str, Any]) -> bool:
    """The audit sampler's answer for a document read on a profile that no rule stopped
    (the orchestrator's `audit_candidate` and the step body); its stage joins the route."""
    from docflow.pipeline.audit import audit_candidate, sample_for_audit

    candidate = audit_candidate(DocumentSummary.from_json(result), result["stages"])
    if candidate is None:
        return False
    stages = sample_for_audit(ref, candidate)(BenchStep())
    result["stages"] = [*result["stages"], *stages]
    return bool(stages)


def _outcome(doc: Document, result: dict[str, Any]) -> dict[str, Any]:
    """The document's verdict as the cold run scores it (`scoring.judge`), with why."""
    verdict = judge(doc, result)
    fields = verdict["fields"].values()
    supplier = result.get("supplier") or {}
    return {
        "reviewed": verdict["reviewed"],  # a person checked its fields
        "any_stage": verdict["any_stage"],
        "straight_through": verdict["straight_through"],
        "wrong": sum(f["wrong"] for f in fields),
        "missing": sum(f["missing"] for f in fields),
        # For --verbose: why this document was or was not straight through.
        "doc": doc.ident,
        "by": supplier.get("by") if supplier.get("certain") else None,
        "profile": sorted(result.get("profileFields") or []),
        "checks": [f"{c.get('field')}:{c.get('code')}" for c in result.get("checks") or []],
        "stages": [s.get("name") for s in result["stages"]],
        "off": [name for name, f in verdict["fields"].items() if not f["ok"]],
    }


def _straight(outcome: dict[str, Any]) -> bool:
    return bool(outcome["straight_through"])


def _fold(name: str) -> str:
    return " ".join(name.lower().split())


def _trust_of(result: dict[str, Any]) -> dict[str, str]:
    """For --verbose: the matched layout's entries as they stood (confirmed, graded hits,
    suspended), so a field held as untrusted says how far it got."""
    from docflow.suppliers.layouts import LayoutStore

    layout_id = (result.get("layout") or {}).get("layoutId")
    if not layout_id:
        return {}
    layout = LayoutStore(runtime().settings.supplier_table).get(str(layout_id))
    fields = (layout.profile.get("fields") or {}) if layout else {}
    return {
        name: f"c{e.get('confirmed', 0)} h{(e.get('graded') or {}).get('hits', 0)}"
        + (" absent" if e.get("absent") else f" {e.get('label', e.get('value', ''))!r}"[:40])
        + (" suspended" if e.get("suspended") else "")
        for name, e in sorted(fields.items())
    }


def _reads(doc: Document, result: dict[str, Any], issuer: str) -> list[dict[str, Any]]:
    """Each layout read of the document (given or shadow) with whether the truth agrees: what
    `--fit-profile` fits the profile table on."""
    out = []
    for name, read in sorted((result.get("profileReads") or {}).items()):
        value = (result.get("shadow") or {}).get(name)
        truth = doc.truth.get(name)
        if value is None or name not in doc.truth:
            continue
        right = same_value(name, value, str(truth)) if truth is not None else value == ""
        out.append(
            {"doc": doc.ident, "issuer": issuer, "field": name, "cells": read["cells"]}
            | {"right": right}
        )
    return out


def warm(
    docs: list[Document],
    bucket: str,
    cold: list[dict[str, Any]],
    reads: ReadCache | None = None,
    reviewed: int = 1,
    stream: Callable[[Document], str] | None = None,
    by_name: bool = False,
) -> dict[str, Any]:
    """Replay `docs` in order (see the module's docstring); `cold`: their cold results;
    `reads`: the cold run's page reads, reused (`--reads`, development only). `stream`: the
    documents a supplier's replay counts in (default: the supplier, by the truth's vendor
    name); the first `reviewed` of each stream are reviewed with their truth and taught,
    the rest measured. A supplier is registered once, by the first document of its first
    stream (the variants give one supplier two streams: a layout's text pages and scans)."""
    store = SupplierStore(runtime().settings.supplier_table)
    seen: dict[str, str | None] = {}  # supplier (folded name) -> its registered id
    counts: dict[str, int] = {}
    measured: list[tuple[dict[str, Any], dict[str, Any], bool]] = []
    results: list[tuple[Document, dict[str, Any]]] = []
    profile_reads: list[dict[str, Any]] = []
    for doc, cold_result in zip(docs, cold, strict=True):
        name = doc.truth.get("vendor_name")
        if doc.doc_type not in ("invoice", "credit-note", "purchase-order") or not name:
            continue
        ref, plan, result = _run(doc, bucket, reads)
        who = _fold(str(name))
        key = stream(doc) if stream else who
        profile_reads.extend(_reads(doc, result, key.removesuffix("_scan")))
        counts[key] = counts.get(key, 0) + 1
        if counts[key] > reviewed:
            shown = result.get("supplier") or {}
            matched = bool(shown.get("certain"))
            audited = _audited(ref, result)
            outcome = _outcome(doc, result)
            how = str(shown.get("by") or "none") if shown.get("supplierId") else "none"
            layout = str((result.get("layout") or {}).get("status") or "none")
            outcome = {**outcome, "audited": audited, "matched_by": how, "layout": layout}
            outcome["held"] = held_by(result, outcome)
            outcome["trust"] = _trust_of(result)
            outcome["shadow"] = result.get("shadow") or {}
            measured.append((outcome, _outcome(doc, cold_result), matched))
            results.append((doc, result))
            if outcome["reviewed"] or audited:
                _teach(ref, plan, doc, result, "audit" if audited else "fields")
            continue
        if who not in seen:
            ibans = _issuer_ibans(ref, plan)
            currency = doc.truth.get("currency")
            seen[who] = _register(store, str(name), result, ibans, currency, by_name)
        _teach(ref, plan, doc, result, "fields")
    count = len(measured)

    def share(values: list[bool]) -> float | None:
        return round(sum(values) / count, 4) if count else None

    no_review = [w for w, _c, _m in measured if not w["reviewed"]]
    return {
        "documents": count,
        "suppliers": len(seen),
        "matched": share([m for _w, _c, m in measured]),
        "layout_matched": share([w["layout"] == "matched" for w, _c, _m in measured]),
        "straight_through": share([_straight(w) for w, _c, _m in measured]),
        "review_rate": share([w["any_stage"] for w, _c, _m in measured]),
        "fields_review_rate": share([w["reviewed"] for w, _c, _m in measured]),
        "audit_rate": share([w["audited"] for w, _c, _m in measured]),
        "silent_wrong": sum(w["wrong"] for w in no_review),
        "silent_missing": sum(w["missing"] for w in no_review),
        "cold_straight_through": share([_straight(c) for _w, c, _m in measured]),
        "matched_by": dict(sorted(Counter(w["matched_by"] for w, _c, _m in measured).items())),
        "held": dict(sorted(Counter(w["held"] for w, _c, _m in measured).items())),
        # What the reading alone earned: no stage but the audit's, every field right.
        "straight_through_but_audit": share(
            [not w["off"] and set(w["stages"]) <= {"audit"} for w, _c, _m in measured]
        ),
        "_details": [w for w, _c, _m in measured],
        "_results": results,
        "_reads": profile_reads,
    }


def warm_by_confirmations(
    docs: list[Document],
    bucket: str,
    cold: list[dict[str, Any]],
    reads: ReadCache | None,
    counts: tuple[int, ...] = (1, 2),
    by_name: tuple[int, ...] = (2,),
    **replay: Any,
) -> dict[str, dict[str, Any]]:
    """`warm` once per `[suppliers] min_confirmations` in `counts`, each from an empty
    registry, on the shipped rules with that one number changed: {str(count): figures}; and
    once more per count in `by_name` with every supplier registered by name: {"2+names"}."""
    import os
    import re
    import tempfile
    from pathlib import Path

    from docflow import aws
    from docflow.rules.model import DEFAULT_RULES
    from docflow.runtime import use_runtime
    from docflow.settings import load_settings

    out: dict[str, dict[str, Any]] = {}
    before = os.environ.get("DOCFLOW_RULES_PATH")
    with tempfile.TemporaryDirectory() as folder:
        runs = [(str(c), c, False) for c in counts] + [(f"{c}+names", c, True) for c in by_name]
        for key, count, names in runs:
            path = Path(folder) / f"rules-{count}.toml"
            text = re.sub(
                r"(?m)^min_confirmations = \S+$",
                f"min_confirmations = {count}",
                DEFAULT_RULES.read_text(),
            )
            path.write_text(text)
            os.environ["DOCFLOW_RULES_PATH"] = str(path)
            load_settings.cache_clear()
            use_runtime(None)
            _empty(aws.client("dynamodb"), load_settings().supplier_table)
            out[key] = warm(docs, bucket, cold, reads, by_name=names, **replay)
    os.environ["DOCFLOW_RULES_PATH"] = before or ""
    load_settings.cache_clear()
    use_runtime(None)
    return out


def _empty(ddb: Any, table: str) -> None:
    """Every supplier, claim and audit ledger gone (a Scan: the bench's own reset, never
    the app's)."""
    start: dict[str, Any] | None = None
    while True:
        page = ddb.scan(TableName=table, **({"ExclusiveStartKey": start} if start else {}))
        for item in page.get("Items", []):
            ddb.delete_item(TableName=table, Key={"pk": item["pk"]})
        start = page.get("LastEvaluatedKey")
        if not start:
            return
