"""The dashboard's document page: the run's timeline (SVG) beside the read model's history, the
open wait in words, each failed attempt's error, the document's fields and cost.

Served locally at `/dashboard/doc/<document id>[?version=V]`; in AWS the custom widget
function answers `{"document": ID}` with the same fragment (`fragment`), which the lists open
in a popup. Server-rendered from `templates/`, no script, every value escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from docflow import aws
from docflow.ids import name_of
from docflow.readmodel.items import DocumentState, DocumentView
from docflow.readmodel.schema import stage_label
from docflow.trace import history, report, svg
from docflow.trace.shapes import Trace
from docflow.trace.text import flat

TEMPLATES = Path(__file__).with_name("templates")
DOC_ID = re.compile(r"^d-[0-9a-f]{24}$")

if TYPE_CHECKING:
    from docflow.readmodel.queries import ReadModel


def template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def trace_of(
    model: ReadModel, document_id: str, version: str | None
) -> tuple[DocumentView, Trace | None, str]:
    """(read model's show, the trace or None, why there is none)."""
    from docflow.cost import cost_line

    shown = model.show(document_id)
    if not shown["state"]:
        return shown, None, "The read model has no such document."
    try:
        run_id = report.run_for(shown, version)
        fold = history.read(run_id)
    except (ValueError, history.NoExecution) as exc:
        return shown, None, str(exc)
    except ClientError as exc:  # no access to the history (IAM), or no such API: say which
        return shown, None, f"the history could not be read ({aws.error_code(exc)})"
    return shown, report.build(shown, run_id, version, fold, cost_line), ""


def fragment(
    model: Any,
    document_id: str,
    version: str | None = None,
    now: datetime | None = None,
    link: Callable[[str, str], str] | None = None,
) -> str:
    """The page's body (no <html>): what the CloudWatch widget returns. `link(document id,
    label HTML)`: how the page links another document (a packet's parts, a part's packet)."""
    now = now or datetime.now(UTC)
    if not DOC_ID.match(document_id):
        return "<p>Not a document id.</p>"
    shown, trace, why = trace_of(model, document_id, version)
    state = shown.get("state") or {}
    if not state:
        return f"<p>{escape(why)}</p>"
    return template("document.html").substitute(
        name=escape(name_of(state) if state.get("key") else document_id),
        summary=summary(state, trace),
        packet=packet_section(model, state, link or local_link),
        open=open_list(trace, why),
        timeline=svg.render(trace, now) if trace else "",
        attempts=failures(trace),
        reviews=reviews_list(trace),
        history=history_table(shown, trace),
        fields=fields_table(state),
    )


def page(model: Any, document_id: str, version: str | None = None) -> str:
    return template("page.html").substitute(
        title=escape(document_id), body=fragment(model, document_id, version)
    )


def _row(label: str, value: Any) -> str:
    # Not `words`: on a phone the summary's cells stack (the page's CSS), so a value has the
    # section's width, and only a token longer than that line (a run id) is broken.
    return f"<tr><th>{escape(label)}</th><td>{escape(str(value))}</td></tr>"


def words(value: Any) -> str:
    """Escaped text whose lines break only between words: a browser also breaks after a
    hyphen (`pending-/review`, a timestamp, a run id), so each word is kept whole."""
    return " ".join(f"<span class=w>{escape(w)}</span>" for w in str(value).split(" ") if w)


def summary(state: DocumentState, trace: Trace | None) -> str:
    rows = [
        _row(k, state[k])
        for k in ("documentId", "version", "status", "docType", "pages", "reason", "updatedAt")
        if state.get(k) is not None
    ]
    for e in state.get("duplicateOf") or []:  # an invoice that may have been sent before
        facts = ", ".join(str(e[k]) for k in ("status", "number", "date", "total") if e.get(k))
        rows.append(_row("duplicate of", f"{e.get('documentId')} ({facts})"))
    if trace:
        ex = trace["execution"]
        rows.append(_row("run", f"{trace['runId']} (execution {ex['status']})"))
        rows.append(
            _row(
                "operations",
                f"{ex['operations']} in {report.human(ex['durationSeconds'])} "
                f"({ex['events']} history events)",
            )
        )
        if trace.get("costLine"):
            rows.append(_row("cost", trace["costLine"]))
        if trace.get("criticalPath"):
            # Every step: a packet's path runs to 16 and more, and its end is the news.
            path = trace["criticalPath"]
            rows.append(_row(f"critical path ({len(path)} steps)", " → ".join(path)))
    return scroll("<table class=kv>" + "".join(rows) + "</table>")


def scroll(table: str) -> str:
    """A table in a box that scrolls sideways on a narrow screen: cells never break a word."""
    return f'<div class="scroll">{table}</div>'


def packet_section(model: ReadModel, state: DocumentState, link: Callable[[str, str], str]) -> str:
    """A packet's parts (each a link to its page, with its pages, type and status), or a
    part's packet and pages; "" for any other document (docs/packets.md)."""
    if state.get("parentId"):
        parent_id = str(state["parentId"])
        parent = model.states([parent_id]).get(parent_id) or {}
        name = escape(str(parent.get("key") or parent_id).rsplit("/", 1)[-1])
        first, last = [*(state.get("parentPages") or []), 0, 0][:2]
        body = f"<p>Part of the packet {link(parent_id, name)}: its pages {first} to {last}.</p>"
        return f'<section class="wide" id="packet"><h2>Packet</h2>{body}</section>'
    if state.get("docType") != "packet":
        return ""
    parts = model.children(str(state["documentId"]))
    rows = "".join(
        "<tr>"
        f"<td>{words(_pages(c.get('parentPages')))}</td>"
        f"<td>{link(str(c['documentId']), words(c['documentId']))}</td>"
        f"<td>{words(c.get('docType') or '-')}</td>"
        f"<td>{words(c.get('status') or '')}</td>"
        f"<td>{words(c.get('stageName') or c.get('reason') or '')}</td>"
        "</tr>"
        for c in parts
    )
    names = ("pages", "document", "type", "status", "stage or reason")
    head = "<tr>" + "".join(f"<th>{n}</th>" for n in names) + "</tr>"
    said = (
        f"<p>Split into {int(state.get('parts') or 0)} documents, each with a run of its own.</p>"
    )
    table = scroll(f"<table>{head}{rows}</table>") if rows else "<p>No part has reported yet.</p>"
    return f'<section class="wide" id="packet"><h2>Packet</h2>{said}{table}</section>'


def _pages(pages: Any) -> str:
    first, last = [*(pages or []), 0, 0][:2]
    return f"page {first}" if first == last else f"pages {first}–{last}"


def open_list(trace: Trace | None, why: str) -> str:
    if trace is None:
        return f"<p>No execution history: {escape(why)}</p>"
    said = trace.get("open") or []
    if not said:
        return "<p>Nothing open: the run has ended.</p>"
    return "<ul class=open>" + "".join(f"<li>{escape(s)}</li>" for s in said) + "</ul>"


def failures(trace: Trace | None) -> str:
    if trace is None:
        return ""
    items = []
    for op in flat(trace["operations"]):
        for a in op.get("attempts") or []:
            if tried := a.get("error"):
                items.append(
                    f"<li><b>{escape(op['name'])}</b> attempt {a['attempt']} "
                    f"({escape(str(a.get('end') or ''))}): "
                    f"{escape(tried['type'])}: {escape(tried['message'])}</li>"
                )
        failed = op.get("error")
        if failed and not op.get("attempts"):
            items.append(
                f"<li><b>{escape(op['name'])}</b> {escape(op['status'])}: "
                f"{escape(failed['type'])}: {escape(failed['message'])}</li>"
            )
    error = trace["execution"].get("error")
    if error:
        items.append(
            f"<li><b>execution</b>: {escape(error['type'])}: {escape(error['message'])}</li>"
        )
    if not items:
        return "<p>No failed attempts.</p>"
    return "<ul class=errors>" + "".join(items) + "</ul>"


def reviews_list(trace: Trace | None) -> str:
    """Each review stage's wait: who, since when, and what they decided (never a comment)."""
    items = []
    for op in flat(trace["operations"] if trace else []):
        review = op.get("review")
        if not review:
            continue
        who = ", ".join(review.get("reviewers") or []) or "-"
        text = (
            f"{review.get('stageName') or review['stageIndex']}: {who}; link sent "
            f"{review.get('linkSentAt') or '-'}"
        )
        if review.get("decision"):
            text += (
                f"; {review['decision']} by {review.get('decidedBy') or '-'} at "
                f"{review.get('decidedAt')} after {report.human(review.get('waitedSeconds'))}"
            )
        else:
            text += f"; open for {report.human(op['durationSeconds'])}"
        items.append(f"<li>{escape(text)}</li>")
    if not items:
        return "<p>No review stage in this run.</p>"
    return "<ul class=reviews>" + "".join(items) + "</ul>"


def history_table(shown: DocumentView, trace: Trace | None) -> str:
    run = trace["runId"] if trace else None
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{words(v or '')}</td>"
            for v in (_at(h.get("at")), h.get("status"), stage_label(h), h.get("cause"))
        )
        + "</tr>"
        for h in shown.get("history") or []
        if run is None or h.get("runId") == run
    )
    head = "<tr><th>at</th><th>status</th><th>stage</th><th>by</th></tr>"
    return scroll(f"<table>{head}{rows}</table>")


def _at(stamp: Any) -> str:
    """`2026-12-01T12:00:28.184+00:00` as `2026-12-01 12:00:28` (UTC, as every time here):
    two words, so the history fits its column beside the timeline and on a phone."""
    return (
        re.sub(r"\.\d+(?=\+00:00$)", "", str(stamp or ""))
        .replace("T", " ", 1)
        .removesuffix("+00:00")
    )


def fields_table(state: DocumentState) -> str:
    fields = state.get("fields") or {}
    if not fields:
        return "<p>No extracted fields.</p>"
    rows = "".join(
        f"<tr><td>{words(name)}</td><td>{words(f.get('value'))}</td>"
        f"<td>{float(f.get('confidence') or 0):.2f}</td></tr>"
        for name, f in sorted(fields.items())
    )
    return scroll(f"<table><tr><th>field</th><th>value</th><th>confidence</th></tr>{rows}</table>")


def local_answer(path: str, query: str) -> tuple[int, bytes]:
    """The local dashboard's `/dashboard/doc/<id>`: (status, HTML)."""
    from urllib.parse import parse_qs

    from docflow.readmodel.queries import ReadModel
    from docflow.settings import load_settings

    document_id = path.rstrip("/").rsplit("/", 1)[-1]
    if not DOC_ID.match(document_id):
        return 404, b"not a document id"
    versions = parse_qs(query).get("version")
    version = versions[0] if versions else None
    model = ReadModel(load_settings().table_name)
    return 200, page(model, document_id, version).encode()


def local_href(document_id: str) -> str:
    return f"/dashboard/doc/{escape(document_id)}"


def local_link(document_id: str, label: str) -> str:
    """The local dashboard lists' link to a document's page (`label` is escaped HTML)."""
    return f'<a href="{local_href(document_id)}">{label}</a>'
