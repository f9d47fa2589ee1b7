"""The operators' dashboard on the local stack: `/dashboard` on the review port.

The same lists as the CloudWatch dashboard's custom widgets (docflow.ops.widgets, from the
read model's indexes), and the same metric panels drawn as SVG on the server from the data
points the stack recorded in `metrics.jsonl` (the functions' EMF metrics, the function
host's invocations and durations, the queue sampler's depths). No script, nothing fetched
from elsewhere; GET only; loopback only (the review port binds 127.0.0.1).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import parse_qs, quote

from docflow.local.config import StackConfig
from docflow.local.services.metric_points import WINDOW_MIN, Point, read_points, series
from docflow.ops.charts import bar_chart, line_chart
from docflow.ops.widgets import render_list, template, verdict_shares
from docflow.readmodel.items import DocumentState
from docflow.readmodel.queries import ReadModel
from docflow.settings import load_settings
from docflow.trace.page import local_link
from docflow.trace.stuck import Stuckness

PATH = "/dashboard"
REFRESH_S = 15
HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _is(namespace: str, name: str, **dims: str) -> Callable[[Point], bool]:
    def match(p: Point) -> bool:
        found = p.get("dims", {})
        return (
            p.get("ns") == namespace
            and p.get("name") == name
            and all(found.get(k) == v for k, v in dims.items())
        )

    return match


def charts(points: list[Point], config: StackConfig, now: float) -> str:
    start = now - WINDOW_MIN * 60
    recent = [p for p in points if p["t"] >= start]
    labels = (
        datetime.fromtimestamp(start, UTC).strftime("%H:%M"),
        datetime.fromtimestamp(now, UTC).strftime("%H:%M"),
    )

    def docflow(names: dict[str, str]) -> Callable[[Point], str | None]:
        return lambda p: names.get(p["name"]) if p.get("ns") == "docflow" else None

    def by_dim(metric: str, dim: str) -> Callable[[Point], str | None]:
        return lambda p: (
            str(p["dims"].get(dim)) if p.get("ns") == "docflow" and p["name"] == metric else None
        )

    orchestrator = _is("AWS/Lambda", "Duration", FunctionName="docflow-orchestrator")
    errors = _is("AWS/Lambda", "Errors", FunctionName="docflow-orchestrator")
    internal = _is("docflow", "DocumentsFailedByReason", reason="internal-error")
    intake, dlq = config.names("IntakeQueue"), config.names("IntakeDeadLetterQueue")
    documents = {
        "DocumentsReceived": "received",
        "DocumentsFinalized": "finalized",
        "DocumentsArchived": "archived",
        "DocumentsFailed": "failed",
    }
    panels = [
        line_chart("Documents", series(recent, start, docflow(documents)), labels),
        bar_chart(
            "Failed, by reason (all recorded)", _totals(points, "DocumentsFailedByReason", "reason")
        ),
        line_chart(
            "Pages read, by engine", series(recent, start, by_dim("PagesRead", "engine")), labels
        ),
        line_chart(
            "Textract throttles and cap waits",
            series(
                recent,
                start,
                docflow({"ReaderThrottles": "throttled calls", "ReaderCapWaits": "cap waits"}),
            ),
            labels,
        ),
        line_chart(
            "Reviews",
            series(
                recent,
                start,
                docflow({"PendingReviews": "pending", "OverdueReviews": "overdue"}),
                "max",
            ),
            labels,
            gauge=True,
        ),
        line_chart(
            "Oldest pending review",
            series(recent, start, docflow({"OldestPendingReviewSeconds": "seconds"}), "max"),
            labels,
            unit=" s",
            gauge=True,
        ),
        line_chart(
            "Intake queue and DLQ depth",
            series(
                recent,
                start,
                lambda p: (
                    {intake: "intake", dlq: "DLQ"}.get(p["dims"].get("QueueName", ""))
                    if p.get("ns") == "AWS/SQS"
                    else None
                ),
                "max",
            ),
            labels,
            gauge=True,
        ),
        line_chart(
            "Orchestrator errors",
            # Both, always: a step that kept failing ends its document `internal-error` and
            # its invocation well, so invocation errors alone show none beside such failures.
            zero_filled(
                ("invocation errors", "documents failed: internal-error"),
                series(
                    recent,
                    start,
                    lambda p: (
                        "invocation errors"
                        if errors(p)
                        else "documents failed: internal-error"
                        if internal(p)
                        else None
                    ),
                ),
            ),
            labels,
        ),
        line_chart(
            "Orchestrator invocation duration (mean)",
            series(recent, start, lambda p: "ms" if orchestrator(p) else None, "mean"),
            labels,
            unit=" ms",
            gauge=True,
        ),
        bar_chart("Cost per day and document type (USD, estimate)", _cost_by_day(points), ""),
        bar_chart(
            "Domain events published", _totals(points, "DomainEventsPublished", "detailType")
        ),
        bank_chart(points),
    ]
    return "".join(f"<section>{panel}</section>" for panel in panels)


def bank_chart(points: Iterable[Point]) -> str:
    """The bank-details check's verdicts, each as a share of the invoices checked (all
    recorded), with how many were checked."""
    counts = _totals(points, "BankDetailsChecks", "verdict")
    title = f"Bank-details check, by verdict (% of {sum(counts.values()):.0f} checked)"
    return bar_chart(title, verdict_shares(counts), "%")


def zero_filled(
    names: Iterable[str], found: dict[str, list[float]], buckets: int = WINDOW_MIN
) -> dict[str, list[float]]:
    """Every series in `names`, those without a data point as zeros: a count that is zero is
    an answer ("total 0"), not a missing panel."""
    return {name: found.get(name) or [0.0] * buckets for name in names}


def _totals(points: Iterable[Point], metric: str, dim: str) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for p in points:
        if p.get("ns") == "docflow" and p.get("name") == metric:
            totals[str(p["dims"].get(dim))] += float(p["value"])
    return dict(totals)


def _cost_by_day(points: Iterable[Point]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for p in points:
        if p.get("ns") == "docflow" and p.get("name") == "DocumentCostUsd":
            day = datetime.fromtimestamp(p["t"], UTC).strftime("%m-%d")
            totals[f"{day} {p['dims'].get('docType')}"] += float(p["value"])
    return dict(totals)


def render(config: StackConfig, query: str, now: float | None = None) -> str:
    now = now or time.time()
    params = {k: v[0] for k, v in parse_qs(query).items()}
    model = ReadModel(load_settings().table_name)
    stuck_after = params.get("stuck", "15m")

    def pager(kind: str, token: str) -> str:
        return f'<p><a href="{PATH}?{escape(kind)}={quote(token)}#{escape(kind)}">Next page</a></p>'

    def explain(item: DocumentState) -> Stuckness:
        from docflow.trace.stuck import explain_run

        shown = model.show(str(item["documentId"])) if item.get("documentId") else None
        return explain_run(item, shown=shown)

    def section(kind: str) -> str:
        try:
            return render_list(
                model,
                kind,
                limit=20,
                token=params.get(kind),
                older_than=stuck_after,
                pager=pager,
                link=local_link,
                explain=explain,
            )
        except ValueError as exc:
            return f"<p>{escape(str(exc))}</p>"

    return template("dashboard.html").substitute(
        refresh=REFRESH_S,
        now=escape(datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d %H:%M:%S")),
        window=WINDOW_MIN,
        pending=section("pending"),
        stuck=section("stuck"),
        failed=section("failed"),
        piles=piles_section(),
        proposals=proposals_section(),
        charts=charts(read_points(config.state / "metrics.jsonl"), config, now),
    )


def piles_section(limit: int = 10) -> str:
    """How many pile documents wait in each state, and the latest batch jobs (the pool
    table's index: Query only)."""
    from docflow.piles.pool import CLAIMED, PENDING, SENT, Pool

    try:
        pool = Pool()
        counts = {state: pool.count(state) for state in (PENDING, CLAIMED, SENT)}
        jobs = pool.jobs(limit=200)[-limit:]
    except Exception as exc:  # no pool table (an older stack): say so, keep the page
        return f"<p>{escape(type(exc).__name__)}</p>"
    waiting = ", ".join(f"{n} {escape(state)}" for state, n in counts.items())
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(str(j.get(k, '-')))}</td>"
            for k in ("jobId", "status", "records", "successRecordCount", "errorRecordCount")
        )
        + "</tr>"
        for j in reversed(jobs)
    )
    head = "".join(f"<th>{h}</th>" for h in ("job", "status", "records", "answered", "errors"))
    table = f"<table><tr>{head}</tr>{rows}</table>" if rows else "<p>No batch jobs yet.</p>"
    return f"<p>Documents in the pool: {waiting}.</p>{table}"


def proposals_section(limit: int = 20) -> str:
    """Suppliers reviewers proposed that no operator decided yet (the registry's index:
    Query only); approving is `docflow suppliers approve`, never a page."""
    from docflow.suppliers import proposals
    from docflow.suppliers.store import SupplierStore

    try:
        found = proposals.listed(SupplierStore(load_settings().supplier_table))
    except Exception as exc:  # no supplier table (an older stack): say so, keep the page
        return f"<p>{escape(type(exc).__name__)}</p>"
    open_ = [p for p in found if p.status in proposals.OPEN][:limit]
    if not open_:
        return "<p>No supplier proposal is waiting.</p>"
    heads = ("proposal", "name", "ids", "document", "proposer", "since", "status")
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(str(cell))}</td>"
            for cell in (
                p.proposal_id,
                p.name,
                ", ".join(
                    f"{k} {v}" for k, vs in p.to_json(masked=True)["ids"].items() for v in vs
                ),
                p.document_id,
                p.proposer,
                p.proposed_at[:19].replace("T", " "),
                f"conflict: {p.conflict}" if p.conflict else p.status,
            )
        )
        + "</tr>"
        for p in open_
    )
    head = "".join(f"<th>{h}</th>" for h in heads)
    said = "Approve with `docflow suppliers approve ID` (not its proposer), or reject."
    return f"<p>{escape(said)}</p><table><tr>{head}</tr>{rows}</table>"


def answer(config: StackConfig, method: str, path: str, query: str) -> tuple[int, dict, bytes]:
    """(status, headers, body) for a request under /dashboard."""
    if path.startswith(PATH + "/doc/") and method in ("GET", "HEAD"):
        from docflow.trace.page import local_answer  # the document page (docs/trace.md)

        try:
            status, page = local_answer(path, query)
        except Exception as exc:  # as below: say which part broke
            return 503, {"Content-Type": "text/plain; charset=utf-8"}, repr(exc).encode()
        return status, dict(HEADERS), page
    if path.rstrip("/") != PATH:
        return 404, {"Content-Type": "text/plain; charset=utf-8"}, b"not found"
    if method not in ("GET", "HEAD"):
        return 405, {"Allow": "GET, HEAD", "Content-Type": "text/plain; charset=utf-8"}, b""
    try:
        body = render(config, query).encode()
    except Exception as exc:  # the page reports a broken part instead of dropping the request
        return 503, {"Content-Type": "text/plain; charset=utf-8"}, repr(exc).encode()
    return 200, dict(HEADERS), body


def url(config: StackConfig) -> str:
    return config.review_url + PATH


def serve(request: Any, config: StackConfig, path: str, query: str) -> None:
    """Write the answer to a BaseHTTPRequestHandler (the review port's server)."""
    status, headers, body = answer(config, request.command, path, query)
    request.send_response(status)
    for key, value in headers.items():
        request.send_header(key, value)
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    if request.command != "HEAD":
        request.wfile.write(body)
