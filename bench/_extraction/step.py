"""What a step body gets from the SDK, for the benchmarks that call step bodies directly."""

from __future__ import annotations

from typing import Any


class BenchStep:
    """A logger that discards and the first attempt number, as `StepContext` offers them."""

    attempt = 1

    class logger:  # mirrors StepContext.logger
        @staticmethod
        def info(*_: Any, **__: Any) -> None: ...

        @staticmethod
        def warning(*_: Any, **__: Any) -> None: ...


def run_document(
    doc: Any, bucket: str, reads: Any = None, prefix: str = "bench", sequencer: str = "01"
) -> tuple[Any, list[list[int]], dict[str, Any]]:
    """One document through the pipeline's step bodies up to its route: split, read (or
    restore the reads `--reads` kept), classify, extract, and the stages the orchestrator
    would give it. (ref, page plan, result: the extract step's JSON with `docType`, `stages`,
    each field's `evidence`, and `tableRows`: each table field's rows unmasked)."""
    from docflow import aws
    from docflow.ids import DocumentRef
    from docflow.pipeline.classify import classify_document
    from docflow.pipeline.extract import extract_fields
    from docflow.pipeline.read_batch import read_page_batch
    from docflow.pipeline.results import BatchSummary
    from docflow.pipeline.split import split_document
    from docflow.rules.routed import stages_json
    from docflow.runtime import runtime
    from docflow.suppliers.route import issuer_iban_privacy

    key = f"{prefix}/{doc.ident}.pdf"
    put = aws.client("s3").put_object(Bucket=bucket, Key=key, Body=doc.pdf)
    ref = DocumentRef(bucket, key, put["VersionId"], sequencer)
    step = BenchStep()
    split = split_document(ref)(step)
    if not split.ok:
        failed = {"docType": "failed", "fields": {}, "checks": [], "stages": [], "evidence": {}}
        return ref, [], failed
    plan = split.plan
    batches = reads.restore(doc.pdf, ref) if reads else None
    if batches is None:
        batches = [read_page_batch(ref, i, a, b)(step) for i, (a, b) in enumerate(plan)]
        if reads:
            reads.keep(doc.pdf, ref, plan, batches)
    found = classify_document(ref, [BatchSummary.from_json(b) for b in batches])(step)
    stages = stages_json(found.stages)
    if not found.extract:
        result = {"docType": found.doc_type, "fields": {}, "checks": [], "stages": stages}
        return ref, plan, {**result, "evidence": {}}
    extracted = extract_fields(ref, found.doc_type, plan)(step)
    detail = runtime().store.get_json(str(extracted.key))
    evidence = {n: f.get("evidence", {}) for n, f in detail["fields"].items()}
    # As the orchestrator routes: an IBAN held back at classify is a privacy stage unless
    # extraction judged it the issuer's.
    held = issuer_iban_privacy(found.privacy_held, extracted.ibans)
    result = {
        "docType": found.doc_type,
        **extracted.to_json(),
        "stages": [*stages, *stages_json([*extracted.stages, *held])],
        "evidence": evidence,
        # A table's rows whole: the checkpoint's cells are masked where a detector fired.
        "tableRows": {n: f["rows"] for n, f in detail["fields"].items() if "rows" in f},
        # How each layout read was judged (its calibration cells), for the profile table.
        "profileReads": (detail.get("consulted") or {}).get("profileReads") or {},
    }
    return ref, plan, result
