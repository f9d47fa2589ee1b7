"""The dashboard's custom widgets: pending reviews, stuck documents, latest failures, as HTML.

CloudWatch invokes the widget function with the widget's `params` and a `widgetContext`; it
answers with HTML (or, for `describe`, its documentation as Markdown). The local dashboard
renders the same tables. Read-only by construction: the only calls are the read model's
index queries (docflow.readmodel.queries: Query, never Scan, never a write), and no row
shows a review link or token. Every value is escaped on its way into the HTML; CloudWatch
strips scripts anyway, and this page has none.

Paging: a list shows `limit` rows; "Next page" hands the read model's page token back (in
CloudWatch through a `cwdb-action` that calls this function again, locally as a query
parameter). The token is a position in the index, not a credential.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from string import Template
from typing import Any

from docflow.readmodel.items import DocumentState
from docflow.readmodel.queries import Page, ReadModel, parse_age

TEMPLATES = Path(__file__).with_name("templates")
LISTS = ("pending", "stuck", "failed")
MAX_LIMIT = 100
DEFAULT_STUCK_AFTER = "1h"
Pager = Callable[[str, str], str]  # (list name, next token) -> the "next page" control
Linker = Callable[[str, str], str]  # (document id, escaped label) -> a link to its page
# A stuck row -> {"operation", "kind", "since", "why"} from its run's history
# (docflow.trace.stuck.explain_run): handed in, so this room reads the read model only.
Explainer = Callable[[DocumentState], Mapping[str, object]]


class WidgetError(ValueError):
    """A parameter the widget cannot use; shown in the widget instead of a stack trace."""


def template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def describe() -> str:
    return (TEMPLATES / "describe.md").read_text(encoding="utf-8")


def _age(since: str | None, now: datetime) -> str:
    if not since:
        return ""
    try:
        seconds = int((now - datetime.fromisoformat(since)).total_seconds())
    except ValueError:
        return ""
    days, rest = divmod(max(seconds, 0), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m"


def _when(value: str | None, now: datetime) -> str:
    if not value:
        return ""
    return f"{escape(value[:19].replace('T', ' '))} UTC ({escape(_age(value, now))} ago)"


def _document(item: Mapping[str, Any], link: Linker | None = None) -> str:
    key = str(item.get("key") or "")
    name = key.rsplit("/", 1)[-1] or str(item.get("documentId", ""))
    doc_id = str(item.get("documentId", ""))
    shown = f"{escape(name)}<br><span class=id>{escape(doc_id)}</span>"
    return link(doc_id, shown) if link and doc_id else shown


def _deadline(item: Mapping[str, Any], now: datetime) -> str:
    deadline = item.get("reviewDeadline")
    if not deadline:
        return ""
    try:
        late = datetime.fromisoformat(str(deadline)) < now
    except ValueError:
        late = False
    text = escape(str(deadline)[:19].replace("T", " ")) + " UTC"
    return f"<span class=late>{text} (overdue)</span>" if late else text


# The function version the document's execution started on (and resumes on): a column, so an
# operator draining an old version sees which documents still hold it.
VERSION_HEADER = "Code version"


def _version(item: Mapping[str, Any]) -> str:
    return escape(str(item.get("functionVersion") or ""))


def _stage(item: Mapping[str, Any]) -> str:
    """The stage a document waits at; at the bank-details stage, with the check's verdict
    (`bank-details (unreadable)`), so an operator sees why treasury has it."""
    stage = str(item.get("stageName") or item.get("stage") or "")
    verdict = (item.get("bank") or {}).get("verdict")
    if stage == "bank-details" and verdict:
        return f"{escape(stage)} ({escape(str(verdict))})"
    return escape(stage)


def verdict_shares(counts: Mapping[str, float]) -> dict[str, float]:
    """Each bank-details verdict's share of the invoices checked, in percent (one decimal):
    the dashboards' view of what the check holds, what it passes, and what it could not
    read (docflow.suppliers.bank). `counts`: the `BankDetailsChecks` metric per verdict."""
    total = sum(counts.values())
    if not total:
        return {}
    return {verdict: round(100 * n / total, 1) for verdict, n in counts.items() if n}


def rows_for(
    kind: str,
    items: list[DocumentState],
    now: datetime,
    link: Linker | None = None,
    explain: Explainer | None = None,
) -> tuple[list[str], list]:
    """Headers and cells (already escaped HTML) for one list; `explain`: the stuck rows' run
    history, in words (which operation, since when, why that is stuck)."""
    if kind == "pending":
        headers = ["Document", "Type", "Stage", "Reviewers", "Waiting since", "Deadline"]
        headers.append(VERSION_HEADER)
        cells = [
            [
                _document(i, link),
                escape(str(i.get("docType") or "")),
                _stage(i),
                escape(", ".join(str(r) for r in i.get("reviewers") or [])),
                _when(i.get("pendingSince"), now),
                _deadline(i, now),
                _version(i),
            ]
            for i in items
        ]
    elif kind == "stuck":
        headers = ["Document", "Type", "Status", "Stage", "Last report", VERSION_HEADER]
        cells = [
            [
                _document(i, link),
                escape(str(i.get("docType") or "")),
                escape(str(i.get("status") or "")),
                escape(str(i.get("stage") or "")),
                _when(i.get("updatedAt"), now),
                _version(i),
            ]
            for i in items
        ]
        if explain is not None:
            headers += ["On", "Since", "Why stuck"]
            for row, item in zip(cells, items, strict=True):
                said = explain(item)
                row += [
                    escape(str(said.get("operation") or "")),
                    _when(str(said.get("since") or "") or None, now),
                    escape(str(said.get("why") or "")),
                ]
    else:
        headers = ["Document", "Reason", "Message", "Failed at", VERSION_HEADER]
        cells = [
            [
                _document(i, link),
                escape(str(i.get("reason") or "")),
                escape(str(i.get("message") or "")[:200]),
                _when(i.get("failedAt"), now),
                _version(i),
            ]
            for i in items
        ]
    return headers, cells


def table_html(headers: list[str], cells: list[list[str]]) -> str:
    if not cells:
        return ""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in cells)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def fetch(model: ReadModel, kind: str, limit: int, token: str | None, older_than: str) -> Page:
    if kind == "pending":
        return model.pending(limit, token)
    if kind == "stuck":
        return model.stuck(parse_age(older_than), limit, token)
    return model.failed(limit, token)


CAPTIONS = {
    "pending": "Waiting on a reviewer, oldest first.",
    "stuck": "Not finished and quiet for longer than {older}, oldest first.",
    "failed": "Newest first, each with the reason it failed.",
}
EMPTY = {
    "pending": "No document is waiting on a reviewer.",
    "stuck": "No document has been quiet for longer than {older}.",
    "failed": "No failed documents.",
}


def render_list(
    model: ReadModel,
    kind: str,
    *,
    limit: int = 20,
    token: str | None = None,
    older_than: str = DEFAULT_STUCK_AFTER,
    pager: Pager | None = None,
    now: datetime | None = None,
    link: Linker | None = None,
    explain: Explainer | None = None,
) -> str:
    """One list as an HTML fragment (the widget's answer, or a section of the local page)."""
    if kind not in LISTS:
        raise WidgetError(f"list must be one of {', '.join(LISTS)}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise WidgetError(f"limit must be a whole number 1..{MAX_LIMIT}")
    page = fetch(model, kind, limit, token, older_than)
    now = now or datetime.now(UTC)
    headers, cells = rows_for(kind, page.items, now, link, explain)
    caption = (CAPTIONS if cells else EMPTY)[kind].format(older=older_than)
    more = pager(kind, page.next_token) if pager and page.next_token else ""
    return template("widget.html").substitute(
        list=escape(kind), caption=escape(caption), table=table_html(headers, cells), pager=more
    )


def cloudwatch_pager(endpoint: str, params: Mapping[str, Any]) -> Pager:
    """A "Next page" button that asks this function for the next page, in the same widget."""

    def pager(kind: str, token: str) -> str:
        body = json.dumps({**params, "list": kind, "nextToken": token})
        return (
            '<p><a class="btn">Next page</a>'
            f'<cwdb-action action="call" endpoint="{escape(endpoint)}" display="widget">'
            f"{escape(body, quote=False)}</cwdb-action></p>"
        )

    return pager


def cloudwatch_link(endpoint: str) -> Linker:
    """A row's document opens its page in a popup (this function answers `{"document"}`)."""

    def link(document_id: str, label: str) -> str:
        body = json.dumps({"document": document_id})
        return (
            f'<a class="btn">{label}</a><cwdb-action action="call" endpoint="{escape(endpoint)}"'
            f' display="popup">{escape(body, quote=False)}</cwdb-action>'
        )

    return link


def handle(event: Any, model: ReadModel, endpoint: str) -> Any:
    """The widget function's answer to one CloudWatch invocation."""
    if not isinstance(event, dict):
        return "<p>docflow widget: unexpected event</p>"
    if event.get("describe"):
        return describe()  # Markdown, shown in the console's widget editor
    if event.get("document"):  # a row's link: the document page (docflow.trace.page)
        from docflow.trace.page import fragment

        document, version = str(event["document"]), event.get("version")
        return fragment(model, document, version, link=cloudwatch_link(endpoint))
    params = {k: event[k] for k in ("list", "limit", "olderThan") if k in event}
    try:
        return render_list(
            model,
            str(event.get("list", "pending")),
            limit=event.get("limit", 20),
            token=event.get("nextToken") or None,
            older_than=str(event.get("olderThan", DEFAULT_STUCK_AFTER)),
            pager=cloudwatch_pager(endpoint, params),
            link=cloudwatch_link(endpoint),
        )
    except ValueError as exc:  # WidgetError, a bad age or a foreign page token
        return f"<p>docflow widget: {escape(str(exc))}</p>"
