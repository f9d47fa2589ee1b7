"""Pages per second three ways, side by side in one run, on one generated corpus.

    python bench/throughput.py            8 documents x 6 pages, half of them scanned (OCR)
    python bench/throughput.py --smoke    2 documents x 2 pages
    python bench/throughput.py --short-pages   the same corpus with three-line pages
    python bench/throughput.py --repeat 3      three rounds, the order of the ways rotated
                                               each round (drift on a shared machine falls
                                               on every way alike); ratios are medians
    python bench/throughput.py --compare-durability   (c) again with moto snapshotted, not
                                                      journaled: stack_snapshot_*, journal_slower_by
    python bench/throughput.py --runner-store sqlite  every stack on the SDK's sqlite store, to
                                                      measure the journal store against

Then, on a stack of its own: one-page text documents (20; 3 in --smoke) through `docflow run`,
with the stack's CPU seconds and AWS requests per document (bench/_stack_cost.py).

(a) serial: the loop every pipeline starts as: for each file, for each page, read it (text
    layer or tesseract, with the pipeline's reader and OCR languages), extract the classifier's
    features, write the page text to S3; then classify and write the result. The same library
    functions the pipeline uses.
(b) orchestrator: each document through the durable orchestrator on the testing runner, with
    its page concurrency (documents one after another).
(c) stack: the full local stack, `docflow run` on the corpus (documents side by side).
Overhead: the orchestrator with page concurrency 1 against the serial loop, per page, as a
fraction of the serial loop's time per page: what durability costs beyond the reading itself.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _common
import _stack_cost
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from docflow import aws
from docflow.classify import RulesClassifier, merge_features
from docflow.ids import DocumentRef
from docflow.local.config import StackConfig
from docflow.local.resources import LocalNames
from docflow.local.stack import control
from docflow.local.tools.ports import free_port_base
from docflow.pdf import open_pdf
from docflow.readers import build_reader
from docflow.rules.model import load_rules
from docflow.settings import load_settings
from orchestrator.app import handler
from tests.kit.pdfgen import make_pdf
from tests.kit.sandbox import moto_sandbox

# A full page of text, as a real report page (and a real scan of one) carries.
BODY = [
    "Revenue grew in the north region while costs held flat against plan.",
    "The analysis below compares each region with the same quarter last year.",
    "Findings: customer retention improved and the backlog shrank by a third.",
    "Summary of the quarter: margins widened on lower logistics spending.",
    "Appendix tables list every account with its change over the period.",
]
FULL_LINES, SHORT_LINES = 28, 2


def corpus(folder: Path, documents: int, pages: int, lines: int) -> list[Path]:
    files = []
    for d in range(documents):
        content: list[Any] = []
        for p in range(pages):
            text = f"QUARTERLY REPORT {d}-{p}\n" + "\n".join(
                BODY[i % len(BODY)] for i in range(lines)
            )
            content.append(("scan", text) if p % 2 else text)
        path = folder / f"report-{d:02d}.pdf"
        path.write_bytes(make_pdf(content))
        files.append(path)
    return files


def serial(files: list[Path]) -> float:
    with moto_sandbox(LocalNames(prefix="serial")):
        settings = load_settings()
        rules = load_rules()
        # The pipeline's own reader, with the rules file's OCR languages (tesseract with seven
        # language models costs about 0.4 s more a page than with English alone).
        reader = build_reader(settings, rules.ocr_languages)
        classifier = RulesClassifier(rules)
        s3 = aws.client("s3")
        began = time.perf_counter()
        for path in files:
            features = []
            with open_pdf(path.read_bytes()) as pdf:
                for page in range(1, len(pdf) + 1):
                    result = reader.read(pdf, page)
                    features.append(classifier.extract(result.text))
                    s3.put_object(
                        Bucket=settings.artifact_bucket,
                        Key=f"serial/{path.name}/{page:05d}.txt",
                        Body=result.text.encode(),
                    )
            decided = classifier.classify(merge_features(features), None)
            s3.put_object(
                Bucket=settings.artifact_bucket,
                Key=f"serial/{path.name}/result.json",
                Body=json.dumps(decided).encode(),
            )
        return time.perf_counter() - began


def orchestrated(files: list[Path], concurrency: int) -> float:
    env = {"DOCFLOW_PAGE_CONCURRENCY": str(concurrency)}
    with moto_sandbox(LocalNames(prefix=f"orch{concurrency}"), env) as names:
        bucket = names("DocumentBucket")
        docs = []
        for path in files:
            put = aws.client("s3").put_object(Bucket=bucket, Key=path.name, Body=path.read_bytes())
            docs.append(DocumentRef(bucket, path.name, put["VersionId"], "01"))
        began = time.perf_counter()
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.05) as runner:
            for doc in docs:
                result = runner.run(input=json.dumps(doc.to_event()), execution_timeout=3600)
                if json.loads(result.result)["status"] != "finalized":
                    raise SystemExit(f"{doc.key} did not finalize: {result.result}")
        return time.perf_counter() - began


RUNNER_STORE = "journal"


def stack_config(state: Path, durability: str = "journal") -> StackConfig:
    return StackConfig(
        state=state,
        port_base=free_port_base(28780 + os.getpid() % 100 * 20),
        page_concurrency=4,
        moto_durability=durability,
        runner_store=RUNNER_STORE,
    )


def one_page_corpus(folder: Path, count: int) -> list[Path]:
    return corpus(folder, count, 1, FULL_LINES)  # text pages: the stack's cost, not OCR's


def one_page_cost(tmp: Path, state: Path, smoke: bool) -> dict[str, Any]:
    """On a running, warm stack: the one-page documents' CPU and requests."""
    count, idle_s = (3, 3.0) if smoke else (20, _stack_cost.IDLE_S)
    return _stack_cost.one_page_cost(one_page_corpus, tmp, state, count, idle_s)


def stacked(
    folder: Path,
    state: Path,
    durability: str = "journal",
    then: Callable[[Path], dict[str, Any]] | None = None,
) -> tuple[float, dict[str, Any]]:
    """Seconds for `docflow run` of the corpus on a stack of its own; and what `then` measured
    on that stack afterwards, before it stopped."""
    config = stack_config(state, durability)
    config.save()
    control.up(state)
    measured: dict[str, Any] = {}
    try:
        began = time.perf_counter()
        _stack_cost.run(state, folder)  # every document finalized, or it stops here
        elapsed = time.perf_counter() - began
        if then is not None:
            measured = then(state)
    finally:
        control.down(state)
    return elapsed, measured


WAYS = ("serial", "orchestrator", "stack")


def one_round(
    files: list[Path],
    folder: Path,
    tmp: Path,
    order: list[str],
    then: Callable[[Path], dict[str, Any]] | None = None,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Seconds for each way, run in the given order; and what `then` measured on the stack."""
    took: dict[str, float] = {}
    measured: dict[str, Any] = {}
    for way in order:
        if way == "serial":
            took[way] = serial(files)
        elif way == "orchestrator":
            took[way] = orchestrated(files, concurrency=4)
        else:
            state = tmp / f"stack-{len(list(tmp.glob('stack-*')))}"
            took[way], measured = stacked(folder, state, then=then)
    return took, measured


def spread(values: list[float]) -> float:
    """(max - min) / median: how far apart the rounds were."""
    mid = statistics.median(values)
    return round((max(values) - min(values)) / mid, 3) if mid else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=(
            "JSON: {pages, repeat, rounds: [{order, serial_s, orchestrator_s, stack_s, "
            "stack_vs_serial, orchestrator_vs_serial}], serial_pages_per_s, "
            "orchestrator_pages_per_s, stack_pages_per_s (medians), orchestrator_vs_serial, "
            "stack_vs_serial (medians of the rounds' ratios), *_spread ((max-min)/median of "
            "the rounds), overhead_fraction, [stack_snapshot_*, journal_slower_by], "
            "runner_store, stack_cpu_s_per_one_page_document, requests_per_one_page_document "
            "({service: requests}), one_page: {documents, seconds, cpu_s_per_document: "
            "{supervisor, host, total}, idle_cpu_s_per_s, requests_per_document: {service: "
            "{operation: n}}, requests_per_document_by_service, idle_requests_per_s}}"
        ),
    )
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument(
        "--short-pages",
        action="store_true",
        help="three-line pages: fixed per-document costs dominate",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of the three ways, the order rotated each round (default 1)",
    )
    parser.add_argument(
        "--compare-durability",
        action="store_true",
        help="also run the stack with moto snapshotted every 2 s instead of journaled",
    )
    parser.add_argument(
        "--runner-store",
        choices=("journal", "sqlite"),
        default="journal",
        help="the durable runner's store on every stack (default journal)",
    )
    parser.add_argument(
        "--one-page-only",
        action="store_true",
        help="only the one-page documents' CPU and requests (no rounds)",
    )
    args = parser.parse_args()
    global RUNNER_STORE
    RUNNER_STORE = args.runner_store
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    _common.quiet()

    def measure(state: Path) -> dict[str, Any]:
        return one_page_cost(state.parent / "cost", state, args.smoke)

    if args.one_page_only:
        with tempfile.TemporaryDirectory() as tmp:
            warm = Path(tmp) / "warm"
            warm.mkdir()
            one_page_corpus(warm, 1)
            _, cost = stacked(warm, Path(tmp) / "stack", then=measure)
        _common.emit({"runner_store": RUNNER_STORE, **cost})
        return
    documents, pages = (2, 2) if args.smoke else (8, 6)
    one_page: dict[str, Any] = {}
    lines = SHORT_LINES if args.short_pages else FULL_LINES
    total = documents * pages
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        files = corpus(folder, documents, pages, lines)
        for n in range(args.repeat):
            # Rotate, and reverse every other round: each way runs first, middle and last.
            order = list(WAYS[n % 3 :] + WAYS[: n % 3])
            if n % 2:
                order.reverse()
            # The first round's stack, warm from its corpus, measures the one-page documents.
            took, measured = one_round(files, folder, Path(tmp), order, measure if n == 0 else None)
            one_page = measured or one_page
            rounds.append(
                {
                    "order": order,
                    **{f"{way}_s": round(took[way], 2) for way in WAYS},
                    "stack_vs_serial": round(took["serial"] / took["stack"], 2),
                    "orchestrator_vs_serial": round(took["serial"] / took["orchestrator"], 2),
                }
            )
            print(json.dumps({"round": n + 1, **rounds[-1]}), file=sys.stderr, flush=True)
        a = statistics.median(r["serial_s"] for r in rounds)
        b = statistics.median(r["orchestrator_s"] for r in rounds)
        c = statistics.median(r["stack_s"] for r in rounds)
        b1 = orchestrated(files, concurrency=1)
        c_snap = (
            stacked(folder, Path(tmp) / "snap", "snapshot")[0] if args.compare_durability else 0
        )
    compared = (
        {
            "stack_snapshot_pages_per_s": round(total / c_snap, 3),
            "stack_snapshot_vs_serial": round(a / c_snap, 2),
            "journal_slower_by": round(c / c_snap - 1, 3),
        }
        if c_snap
        else {}
    )
    stack_ratios = [r["stack_vs_serial"] for r in rounds]
    orch_ratios = [r["orchestrator_vs_serial"] for r in rounds]
    _common.emit(
        {
            "pages": total,
            "repeat": args.repeat,
            "rounds": rounds,
            "serial_pages_per_s": round(total / a, 3),
            "orchestrator_pages_per_s": round(total / b, 3),
            "stack_pages_per_s": round(total / c, 3),
            "orchestrator_vs_serial": round(statistics.median(orch_ratios), 2),
            "stack_vs_serial": round(statistics.median(stack_ratios), 2),
            "orchestrator_vs_serial_spread": spread(orch_ratios),
            "stack_vs_serial_spread": spread(stack_ratios),
            "overhead_fraction": round((b1 - a) / a, 3),
            **compared,
            "runner_store": RUNNER_STORE,
            "stack_cpu_s_per_one_page_document": one_page["cpu_s_per_document"]["total"],
            "requests_per_one_page_document": one_page["requests_per_document_by_service"],
            "one_page": one_page,
        }
    )


if __name__ == "__main__":
    main()
