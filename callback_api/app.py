"""The reviewers' door: a Lambda Function URL (AuthType NONE; the signed link is the check).

    GET  /review/{token}            the review page; sends a heartbeat; decides nothing
    GET  /review/{token}/pages/{n}  page n's preview (PNG), rendered once, then cached in S3
    GET  /review/{token}/original   a redirect to a presigned download, made at the click
    POST /review/{token}            the page's Approve / Reject: consumes the link, resumes the run
                                    (a triage page's Approve sends the picked `docType`)
    POST /review/{token}/release    gives back the reviewer's claim on the document
    POST /callbacks/{token}         a service completing a machine link, HMAC-signed, time window
                                    (`{"approved", "comment", "docType"}`; docType on triage only)
    GET  /inbox/{token}             a reviewer's pending items (`?stage=&type=&page=&at=&back=`),
                                    oldest first; each opens that reviewer's review page

Every path under a token passes the same checks (signature, expiry, link state, document
binding, the reviewer's revocation), so a reviewer's access to the document ends with the
link. An inbox link is checked the same way under its own purpose; a refused one lists nothing
and answers 403. Every bad request gets a 4xx page (or JSON, if asked) and sends no callback.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver, Response

from docflow.extract.corrections import validate_corrections
from docflow.observability import logger
from docflow.review.access.inbox_links import InboxRefused
from docflow.review.access.refusals import REJECT_REASONS, ReviewRefused
from docflow.review.stage.triage import UNCLASSIFIABLE, choices_of, type_problem
from docflow.review.web.message_pages import decided_page, refusal_page, released_page
from docflow.review.web.templating import SECURITY_HEADERS
from docflow.review.web.views import ReviewViews
from docflow.settings import load_settings

app = LambdaFunctionUrlResolver()
_views: ReviewViews | None = None
OTHER_METHODS = ["PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def views() -> ReviewViews:
    global _views
    if _views is None:
        _views = ReviewViews.from_settings(load_settings())
    return _views


def use_views(value: ReviewViews | None) -> None:
    global _views
    _views = value


def _wants_json() -> bool:
    accept = (app.current_event.headers or {}).get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def _answer(status: int, html: str, data: dict[str, Any]) -> Response:
    if _wants_json():
        return Response(status, "application/json", json.dumps(data), dict(SECURITY_HEADERS))
    return Response(status, "text/html; charset=utf-8", html, dict(SECURITY_HEADERS))


def _refuse(status: int, code: str, message: str, link: dict[str, Any] | None = None) -> Response:
    earlier = (link or {}).get("decision")
    data: dict[str, Any] = {"error": code, "message": message}
    if earlier:
        data["decision"] = earlier
    return _answer(status, refusal_page(status, message, link), data)


def _body() -> bytes:
    event = app.current_event
    raw = event.decoded_body or ""
    return raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)


def _too_big() -> bool:
    limit = load_settings().callback_max_body_bytes
    declared = (app.current_event.headers or {}).get("content-length", "0")
    return (declared.isdigit() and int(declared) > limit) or len(_body()) > limit


def _offset() -> int:
    raw = (app.current_event.query_string_parameters or {}).get("from", "0")
    return int(raw) if raw.isdigit() and len(raw) < 7 else 0


def _query(name: str) -> str:
    return (app.current_event.query_string_parameters or {}).get(name, "")


def _inbox_form(form: dict[str, list[str]]) -> str:
    return (form.get("inbox") or [""])[0][:2200]


@app.get("/inbox/<token>")
def inbox(token: str) -> Response:
    at = _query("at")
    screen = views().inbox.page(
        token,
        stage=_query("stage"),
        doc_type=_query("type"),
        cursor=_query("page")[:2048],
        at=int(at) if at.isdigit() and len(at) < 4 else 0,
        back=_query("back")[:4096],
    )
    data = {
        "reviewer": screen.reviewer,
        "items": [
            {
                "open": r.url,
                "name": r.name,
                "docType": r.doc_type,
                "stage": r.stage,
                "why": r.why,
                "since": r.since,
                "deadline": r.deadline,
                "overdue": r.overdue,
                "claim": r.claim,
            }
            for r in screen.rows
        ],
        "nextPage": screen.next_page or None,
    }
    return _answer(200, screen.html, data)


@app.get("/review/<token>")
def show(token: str) -> Response:
    page = views().review(token, _offset(), inbox=_query("inbox")[:2200], confirm=_query("confirm"))
    data = {
        "documentId": page.view.claims.document_id,
        "stage": page.view.claims.stage_name,
        "waiting": True,
        "summary": page.view.link.get("summary", {}),
        "pages": page.order,
    }
    return _answer(200, page.html, data)


@app.get("/review/<token>/pages/<number>")
def preview(token: str, number: str) -> Response:
    png, cached = views().preview(token, number)
    headers = {**SECURITY_HEADERS, "X-Preview-Cache": "hit" if cached else "miss"}
    return Response(200, "image/png", png, headers)


@app.get("/review/<token>/original")
def original(token: str) -> Response:
    url = views().download_url(token)
    # The presigned URL lives only in this answer: never stored, valid a few minutes.
    return Response(302, "text/plain", "", {**SECURITY_HEADERS, "Location": url})


@app.post("/review/<token>")
def decide(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    form = parse_qs(_body().decode("utf-8", "replace"), max_num_fields=30)
    choice = (form.get("decision") or [""])[0]
    reason = (form.get("reason") or [""])[0]
    comment = (form.get("comment") or [""])[0]
    submitted = {k[6:]: v[0].strip() for k, v in form.items() if k.startswith("field.")}
    if choice not in ("approve", "reject"):
        return _refuse(400, "no-decision", "choose Approve or Reject")
    if choice == "reject" and reason not in REJECT_REASONS:
        # The error goes next to the field it concerns, on the page the reviewer was on.
        message = "Choose why you reject the document"
        page = views().review(
            token, 0, error=message, reason=reason, comment=comment, inbox=_inbox_form(form)
        )
        return _answer(400, page.html, {"error": "no-reason", "message": message})
    summary = (views().desk.link(token).get("summary") or {}) if choice == "approve" else {}
    doc_type = (form.get("docType") or [""])[0]
    choices = choices_of(summary)
    if choices:  # triage: the type is a required choice, its error next to it
        problem = type_problem(doc_type, choices)
        if problem:
            page = views().review(
                token,
                0,
                error=problem,
                comment=comment,
                type_error=problem,
                doc_type=doc_type,
                inbox=_inbox_form(form),
            )
            return _answer(400, page.html, {"error": "bad-doc-type", "message": problem})
        if doc_type == UNCLASSIFIABLE:  # "none of these": archived as unclassifiable
            decision = views().desk.decide(token, False, comment, UNCLASSIFIABLE)
            return _answer(200, decided_page(decision, REJECT_REASONS), {"decision": decision})
    corrections: dict[str, str] = {}
    if choice == "approve" and submitted and not choices:
        fields = summary.get("fields") or {}
        corrections, errors = validate_corrections(
            fields, {k: v for k, v in submitted.items() if v}
        )
        if errors:  # a bad value decides nothing; each message sits by its field
            page = views().review(
                token,
                0,
                error="Correct the values marked below",
                comment=comment,
                submitted_fields=submitted,
                field_errors=errors,
                inbox=_inbox_form(form),
            )
            return _answer(400, page.html, {"error": "bad-fields", "fields": errors})
    picked = doc_type if choices else ""
    decision = views().desk.decide(
        token, choice == "approve", comment, reason, corrections, doc_type=picked
    )
    # From the inbox: offer the reviewer's next item (their own inbox link only).
    via, next_item = _inbox_form(form), None
    if via and views().inbox.same_reviewer(via, decision["reviewer"]):
        link = views().desk.link_facts(token)
        next_item = views().inbox.next_item(via, decision["reviewer"], str(link.get("stagePk")))
    else:
        via = ""
    html = decided_page(decision, REJECT_REASONS, next_item, f"/inbox/{via}" if via else "")
    data: dict[str, Any] = {"decision": decision}
    if next_item:
        data["next"] = next_item["url"]
    return _answer(200, html, data)


@app.post("/review/<token>/release")
def release(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    form = parse_qs(_body().decode("utf-8", "replace"), max_num_fields=5)
    view = views().desk.release(token)
    via = _inbox_form(form)
    if via and not views().inbox.same_reviewer(via, view.claims.reviewer):
        via = ""
    name = str(view.link.get("key", "")).rsplit("/", 1)[-1]
    html = released_page(name, f"/inbox/{via}" if via else "")
    return _answer(200, html, {"released": True})


@app.post("/callbacks/<token>")
def machine(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    headers = app.current_event.headers or {}
    decision = views().desk.machine(
        token,
        _body(),
        headers.get("x-docflow-timestamp", ""),
        headers.get("x-docflow-signature", ""),
        load_settings().machine_callback_window_s,
    )
    return Response(
        200, "application/json", json.dumps({"decision": decision}), dict(SECURITY_HEADERS)
    )


@app.route("/review/<token>", method=OTHER_METHODS)
@app.route("/review/<token>/release", method=[*OTHER_METHODS, "GET"])
@app.route("/inbox/<token>", method=[*OTHER_METHODS, "POST"])
@app.route("/review/<token>/pages/<number>", method=[*OTHER_METHODS, "POST"])
@app.route("/review/<token>/original", method=[*OTHER_METHODS, "POST"])
@app.route("/callbacks/<token>", method=[*OTHER_METHODS, "GET"])
def wrong_method(token: str, number: str = "") -> Response:
    return _refuse(405, "method-not-allowed", "this address does not accept that method")


@app.not_found
def not_found(_: Exception) -> Response:
    return _refuse(404, "not-found", "there is nothing at this address")


@app.exception_handler(ReviewRefused)
def refused(exc: ReviewRefused) -> Response:
    logger.info("review request refused", extra={"status": exc.status, "code": exc.code})
    return _refuse(exc.status, exc.code, str(exc), exc.link)


@app.exception_handler(InboxRefused)
def inbox_refused(exc: InboxRefused) -> Response:
    logger.info("inbox request refused", extra={"status": exc.status, "code": exc.code})
    return _refuse(exc.status, exc.code, str(exc))


@app.exception_handler(UnicodeError)
@app.exception_handler(ValueError)
def bad_request(exc: Exception) -> Response:
    logger.info("malformed review request", extra={"error": type(exc).__name__})
    return _refuse(400, "bad-request", "the request could not be read")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
