"""Step: read the key fields of an invoice or purchase order, check them, decide whether a
person must look (the `fields` review stage), and apply reviewers' corrections.

The full answer (values, confidences, pages, bounding boxes, rejected engine answers, model
tokens) goes to S3 under the document version's prefix (`fields.json`); the checkpoint carries
only `fields` as `{name: {value, confidence, page, box}}` (a box is four numbers: small enough
for checkpoints, and what the review page outlines), the check reasons and the stages to add,
so the orchestrator's stage list is made of checkpointed values and replays identically.

An e-invoice (`einvoice_key`: the read e-invoice step's `einvoice.json`) takes its fields from
its EN 16931 data instead, and a hybrid's page is read only to check it (`extract_einvoice.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

from aws_durable_execution_sdk_python import StepContext, durable_step

from docflow import observability
from docflow.document import ABSENT, Check, DocumentSummary, Field
from docflow.document.fields import CheckJson, fields_from_json
from docflow.document.shown import FieldValue
from docflow.extract import Extraction, PageInput, build_engine
from docflow.extract.base import Evidence
from docflow.extract.checks.field_checks import check_fields
from docflow.extract.checks.orders import OrderRules, OrderVerdict, compare, confirmed
from docflow.extract.checks.spec import TypeFields
from docflow.extract.checks.table_checks import unverified_tables
from docflow.ids import DocumentRef
from docflow.pdf import open_pdf
from docflow.pipeline.extract_einvoice import DataReading, Stored, from_data
from docflow.pipeline.extract_pages import page_inputs
from docflow.pipeline.field_mask import (
    field_detectors,
    mask_checks,
    mask_fields,
    privacy_stage,
    sensitive_once,
)
from docflow.pipeline.results import Extracted
from docflow.pipeline.retries import Degrading
from docflow.pipeline.run_state import RunState
from docflow.pipeline.serdes import RecordSerDes
from docflow.readmodel.queries import ReadModel
from docflow.readmodel.schema import now_iso
from docflow.review.stage.decision import Decision
from docflow.rules.routed import RoutedStage
from docflow.runtime import runtime
from docflow.storage import fields_key
from docflow.suppliers.data_evidence import Declared
from docflow.suppliers.hook import Consulted, consult
from docflow.suppliers.layout_read import Trust
from docflow.suppliers.payee import asks_for_payment
from docflow.suppliers.route import bank_details_stage, holds_unknown
from docflow.suppliers.store import SupplierStore

EXTRACT = Degrading(attempts=3, first_s=5, most_s=60)
# Outages get a few tries; the last attempt degrades to "a person reads the fields" instead of
# failing the document (throttles are already retried inside the engine call).
EXTRACT_STEP = EXTRACT.config(RecordSerDes(Extracted))


def _consult_registry(
    step: StepContext,
    pages: list[PageInput],
    fields: dict[str, FieldValue],
    names: Sequence[str],
    evidence: Mapping[str, Evidence],
    declared: Declared | None = None,
    extraction: Extraction | None = None,
) -> Consulted:
    """The supplier registry: checked ids, whose IBANs, the registry's name, the profile.
    Skipped for a type that names no issuer (`vendor_name`) and prints no bank account: a
    claim or a statement is no supplier's bill, and "supplier unknown" on its page would only
    confuse. One that prints an account in any form, or asks to be paid to one, is checked
    whatever its type, or a bill worded to be classified as a receipt would carry a known
    supplier's VAT id and another account past the bank-details check; so is an e-invoice
    whose data names a payee account (BT-84), whatever type its code gave it."""
    paid_by_data = declared is not None and bool(declared.accounts)
    if "vendor_name" not in names and not asks_for_payment(pages) and not paid_by_data:
        return Consulted(dict(fields))
    table = runtime().settings.supplier_table
    controls = runtime().rules.controls
    fitted = extraction.thresholds if extraction is not None else {}
    limits = {name: runtime().rules.fields.threshold(name, fitted) for name in names}
    trust = Trust(controls.min_confirmations, controls.distinct_reviewers, limits)
    hold = holds_unknown(controls)
    try:
        store = SupplierStore(table) if table else None
        found = consult(
            store, pages, fields, names, evidence, trust=trust, declared=declared, hold_unknown=hold
        )
        if "layout" in found.shown and extraction is not None and extraction.language:
            # The language a layout taught by this page's review keeps.
            found.shown["layout"] = {**found.shown["layout"], "language": extraction.language}
        return found
    except Exception as exc:  # the registry unreachable: retried, then a person reads it
        if not EXTRACT.last(step):
            raise
        consulted = consult(None, pages, fields, names, evidence, trust=trust, declared=declared)
        consulted.checks.append(Check("registry-failed", f"{type(exc).__name__}"))
        return consulted


@durable_step
def extract_fields(
    step: StepContext,
    doc: DocumentRef,
    doc_type: str,
    plan: list[list[int]],
    einvoice_key: str | None = None,
) -> Extracted:
    rt = runtime()
    rules = rt.rules.fields
    spec = rules.for_type(doc_type)
    if spec is None:
        return Extracted(fields={})
    stored = Stored.parse(einvoice_key, rt.store.get_json(einvoice_key)) if einvoice_key else None
    engine = rt.field_engine or build_engine(rt.settings)
    failure = ""
    if stored is None or stored.hybrid:
        pages, extraction, failure = _read_pages(step, engine, doc, plan, spec)
    else:  # an XML alone has no page to read
        pages, extraction = [], Extraction(engine="einvoice")
    fields = {name: f.summary() for name, f in sorted(extraction.fields.items())}
    reading: DataReading | None = None
    if stored is not None:
        reading = from_data(stored, spec.names, fields if stored.hybrid else None, pages)
        # The data's values, not the page's: the page's reading only checks them.
        fields = reading.fields
        extraction = Extraction(engine=extraction.engine, usage=extraction.usage)
    order = _cited_order(fields, doc_type, rules.orders)
    if order is not None and order.verdict == "match":
        fields = confirmed(fields)
    unreadable = {r["field"] for r in extraction.rejected}
    evidence = {name: f.evidence for name, f in extraction.fields.items()}
    declared = reading.declared if reading is not None else None
    consulted = _consult_registry(step, pages, fields, spec.names, evidence, declared, extraction)
    fields = consulted.fields
    checks: list[Check] = list(reading.checks) if reading else []
    checks += check_fields(
        fields,
        spec,
        rules,
        unreadable - consulted.settled,
        extraction.repairs,
        extraction.thresholds,
    )
    checks.extend(extraction.findings)
    for name in unverified_tables(fields, spec, checks):
        fields[name] = {**fields[name], "unverified": True}
    checks.extend(consulted.checks)
    # With `[matching]` on, the match stage sets the order beside the invoice line by line
    # (docs/matching.md): the header's mismatch is said there, not a second time here.
    if order is not None and order.verdict == "mismatch" and not rt.rules.matching.on:
        checks.append(order.check(fields))
    if failure:
        checks.insert(0, Check("engine-failed", f"{engine.name}: {failure}"))
    key = fields_key(doc)
    rt.store.put_json(
        key,
        {
            "docType": doc_type,
            "engine": extraction.engine,
            "language": extraction.language,
            "fields": {name: f.detail() for name, f in sorted(extraction.fields.items())}
            if reading is None
            else reading.fields,
            "consulted": {"fields": fields, **consulted.shown, **consulted.detail},
            "rejected": extraction.rejected,
            "checks": [_as_written(c) for c in checks],
            "order": order.__dict__ if order is not None else None,
            "usage": extraction.usage,
            "writtenAt": now_iso(),
            **(reading.detail if reading is not None else {}),
        },
    )
    if extraction.usage.get("inputTokens"):
        observability.count(
            "ExtractInputTokens", extraction.usage["inputTokens"], engine=engine.name
        )
    if extraction.usage.get("outputTokens"):
        observability.count(
            "ExtractOutputTokens", extraction.usage["outputTokens"], engine=engine.name
        )
    all_stages = rt.rules.stages
    # An advisory table's findings (`advisory = true`: a misread table must not hold a document
    # that was going straight through) are recorded and shown, but route nowhere.
    holding = [c for c in checks if c.holds]
    stages = [RoutedStage.of(all_stages[rules.stage], "fields")] if holding and rules.stage else []
    # A payee account not registered for the supplier, or one asked for and unreadable,
    # waits for treasury (bank.py): routed on the check's typed decision.
    stages += _bank_details(consulted, all_stages)
    step.logger.info(
        "fields extracted",
        extra={
            "engine": extraction.engine,
            "found": sorted(fields),
            "checks": [c.code for c in checks],
            "rejected": len(extraction.rejected),
        },
    )
    # Whole in fields.json only: what leaves the step is masked, and a masked field is a
    # privacy finding, not a failed check (it adds the privacy stage, not the fields one).
    detectors = field_detectors(rt.rules, doc_type)
    fields, sensitive = mask_fields(fields, detectors)
    checks = [*mask_checks(checks, detectors), *sensitive]
    stages.extend(privacy_stage(rt.rules, sensitive))
    return Extracted(
        fields=fields_from_json(fields),
        checks=tuple(checks),
        stages=tuple(stages),
        key=key,
        usage=meter_usage(extraction.engine, extraction.usage, len(pages)),
        shown=consulted.shown.copy(),
    )


def _as_written(check: Check) -> CheckJson:
    """A check as the step's full answer has always written it: an advisory one's flag as the
    string "true" (the table checks' dicts did), which `Check.from_json` reads as well."""
    out = check.to_json()
    if check.advisory:
        out["advisory"] = "true"
    return out


def _bank_details(consulted: Consulted, stages: Any) -> list[RoutedStage]:
    """The bank-details stage, where the check holds; its verdict counted for the
    dashboards' shares."""
    if consulted.bank is None:
        return []
    observability.count("BankDetailsChecks", verdict=consulted.bank.verdict)
    return bank_details_stage(consulted.bank, runtime().rules.controls, stages)


def _read_pages(
    step: StepContext, engine: Any, doc: DocumentRef, plan: list[list[int]], spec: TypeFields
) -> tuple[list[PageInput], Extraction, str]:
    """The engine's reading of the first pages, and why it gave none (the last attempt)."""
    rt = runtime()
    with ExitStack() as stack:
        pdf = None
        if getattr(engine, "wants_images", False):
            data = rt.store.source_bytes(doc, rt.settings.max_bytes)
            pdf = stack.enter_context(open_pdf(data))
        pages = page_inputs(doc, plan, rt.rules.fields.max_pages, pdf)
        try:
            return pages, engine.extract(pages, spec), ""
        except Exception as exc:
            if not EXTRACT.last(step):
                raise
            failure = f"{type(exc).__name__}: {str(exc)[:200]}"
            return pages, Extraction(engine=engine.name), failure


def _cited_order(
    fields: Mapping[str, FieldValue], doc_type: str, rules: OrderRules
) -> OrderVerdict | None:
    """The invoice against the finalized purchase order it cites, if docflow has one (a
    Query on the read model's `orders` index; its answer is checkpointed with the step's)."""
    number = (fields.get("po_number") or {}).get("value")
    if doc_type == "purchase-order" or not number:
        return None
    orders = ReadModel(runtime().settings.table_name).finalized_orders(str(number))
    return compare(fields, orders, rules)


# What the `textract` engine's calls are billed by (docflow.cost.PRICES).
ANALYZE_DOCUMENT_USAGE = ("analyzeDocumentPages", "analyzeDocumentTablePages")


def meter_usage(engine: str, usage: dict[str, int], pages: int) -> dict[str, int]:
    """The extraction's share of the run's cost, as `docflow.pipeline.meter` counts it."""
    if engine == "bedrock":
        return {
            "bedrockCalls": 1,
            "bedrockInputTokens": int(usage.get("inputTokens", 0)),
            "bedrockOutputTokens": int(usage.get("outputTokens", 0)),
        }
    if engine == "textract-expense":
        return {"analyzeExpensePages": pages}
    if engine == "textract":  # the engine counts its calls: several per page past 15 queries
        return {k: int(usage.get(k, 0)) for k in ANALYZE_DOCUMENT_USAGE}
    return {}


def extracted_into(
    run: RunState, extracted: Extracted, privacy: Iterable[RoutedStage] = ()
) -> RunState:
    """Pure: the run with the fields, their checks and what the registry said in its summary,
    and the stages they add (`privacy`: the held-back IBAN stage, if it comes back); a masked
    field's privacy stage only once."""
    stages = sensitive_once([*run.stages, *extracted.stages, *privacy])
    summary = run.summary.with_fields(extracted.fields, extracted.checks, extracted.shown)
    usage = extracted.usage or {}
    return replace(run, summary=summary, stages=tuple(stages), usage=usage, shadow=extracted.shadow)


def apply_corrections(summary: DocumentSummary, decision: Decision) -> DocumentSummary:
    """Pure, on checkpointed values: the summary after an approved decision's corrections.

    A corrected field keeps the first value the engine read as `original` (a table: the rows
    it read) across several stages, and says who corrected it and when (the decision's own
    `decidedAt`, so a replay computes the same record).
    """
    for name, value in sorted(decision.corrections.items()):
        old = summary.field(name) or Field(None)
        # A table's correction is its rows, all of them; the rows read are its `original`.
        table = isinstance(value, list)
        read_rows = [dict(row) for row in old.rows] if old.rows is not None else None
        first = read_rows if table else old.value
        corrected = Field(
            value=f"{len(value)} rows" if table else value,
            rows=tuple(dict(row) for row in value) if isinstance(value, list) else None,
            confidence=1.0,
            page=old.page,
            # A corrected field keeps where it was read, so the page still shows the place.
            box=old.box if old.box else ABSENT,
            original=first if old.original is ABSENT else old.original,
            corrected_by=decision.reviewer,
            corrected_at=decision.decided_at,
        )
        summary = summary.with_field(name, corrected)
    return summary


def final_fields(summary: DocumentSummary) -> dict[str, Any]:
    """What the finalize report adds to the read model: the fields as finalized, and the
    supplier matched, or the proposal a reviewer's "add this supplier" filed (or why none),
    the bank-details check, and the match against the order it cites (docs/matching.md)."""
    if not summary.has_fields:
        return {}
    written = summary.to_json()
    kept = ("fields", "supplier", "bank", "supplierProposed", "supplierNotAdded", "match")
    return {k: written[k] for k in kept if k in written}
