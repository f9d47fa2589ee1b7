"""The reviewers' door: a Lambda Function URL (AuthType NONE; the signed link is the check).
Routes only: what each answers is built in `docflow.review.web` (views, forms, answers).

    GET  /review/{token}            the review page; sends a heartbeat; decides nothing
    GET  /review/{token}/pages/{n}  page n's preview (PNG), rendered once, then cached in S3
    GET  /review/{token}/original   a redirect to a presigned download, made at the click
    POST /review/{token}            the page's Approve / Reject: consumes the link, resumes the run
                                    (a triage page's Approve sends the picked `docType`)
    POST /review/{token}/presence   "I'm reviewing this": the reviewer is looking at the document
                                    (a GET never says so: it may be a mail scanner's prefetch)
    POST /review/{token}/release    the reviewer is no longer looking at the document
    POST /callbacks/{token}         a service completing a machine link, HMAC-signed, time window
                                    (`{"approved", "comment", "docType"}`; docType on triage only)
    GET  /inbox/{token}             a reviewer's pending items (`?stage=&type=&page=&at=&back=`),
                                    oldest first; each opens that reviewer's review page. Sets
                                    the inbox cookie: review URLs and pages never carry it
    GET  /inbox                     the same, from the inbox cookie (a review page's way back)

Every path under a token passes the same checks (signature, expiry, link state, document
binding, the reviewer's revocation), so a reviewer's access to the document ends with the
link. An inbox link is checked the same way under its own purpose; a refused one lists nothing
and answers 403. Every bad request gets a 4xx page (or JSON, if asked) and sends no callback.
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver, Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite
from botocore.exceptions import ClientError

from docflow.observability import logger
from docflow.review.access.inbox_links import InboxRefused
from docflow.review.access.refusals import ReviewRefused
from docflow.review.web import forms
from docflow.review.web.answers import Answer, inbox_answer, refusal, review_answer
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


def _send(answer: Answer, cookies: list[Cookie] | None = None) -> Response:
    if _wants_json():
        body = json.dumps(answer.data)
        return Response(answer.status, "application/json", body, dict(SECURITY_HEADERS), cookies)
    html = "text/html; charset=utf-8"
    return Response(answer.status, html, answer.html, dict(SECURITY_HEADERS), cookies)


# The inbox link rides in this cookie, never in a review URL or page: a forwarded review link
# carries no power over the reviewer's other items. HttpOnly (no script reads it), SameSite
# Strict (a link from a mail or another site does not send it), a working day long.
INBOX_COOKIE = "docflow_inbox"
INBOX_COOKIE_S = 8 * 3600


def _inbox_cookie() -> str:
    """The inbox link this browser opened the inbox with ("" if none)."""
    event = app.current_event
    parts = list(event.get("cookies") or [])
    parts += ((event.headers or {}).get("cookie") or "").split(";")
    for part in parts:
        name, _, value = part.strip().partition("=")
        if name == INBOX_COOKIE:
            return value[:2200]
    return ""


def _inbox_answer(token: str) -> Response:
    at = _query("at")
    screen = views().inbox.page(
        token,
        stage=_query("stage"),
        doc_type=_query("type"),
        cursor=_query("page")[:2048],
        at=int(at) if at.isdigit() and len(at) < 4 else 0,
        back=_query("back")[:4096],
    )
    cookie = Cookie(
        INBOX_COOKIE,
        token,
        path="/",
        secure=True,
        http_only=True,
        max_age=INBOX_COOKIE_S,
        same_site=SameSite.STRICT_MODE,
    )
    return _send(inbox_answer(screen), [cookie])


def _refuse(status: int, code: str, message: str, link: dict[str, Any] | None = None) -> Response:
    return _send(refusal(status, code, message, link))


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


@app.get("/inbox/<token>")
def inbox(token: str) -> Response:
    return _inbox_answer(token)


@app.get("/inbox")
def inbox_again() -> Response:
    """The way back from a review page: the inbox this browser opened (its cookie)."""
    token = _inbox_cookie()
    if not token:
        return _refuse(403, "no-inbox", "open your inbox from its link in your mail")
    return _inbox_answer(token)


@app.get("/review/<token>")
def show(token: str) -> Response:
    page = views().review(token, _offset(), inbox=_inbox_cookie(), confirm=_query("confirm"))
    return _send(review_answer(page))


@app.get("/review/<token>/pages/<number>")
def preview(token: str, number: str) -> Response:
    png, cached = views().preview(token, number)
    headers = {**SECURITY_HEADERS, "X-Preview-Cache": "hit" if cached else "miss"}
    return Response(200, "image/png", png, headers)


@app.get("/review/<token>/original")
def original(token: str) -> Response:
    url = views().download_url(token)
    # The presigned URL lives only in this answer: never stored (no-store: nor by a browser
    # or a proxy), valid a few minutes; the download is in the document's history.
    headers = {**SECURITY_HEADERS, "Location": url, "Cache-Control": "no-store"}
    return Response(302, "text/plain", "", headers)


@app.post("/review/<token>")
def decide(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    return _send(forms.decide(views(), token, _body().decode("utf-8", "replace"), _inbox_cookie()))


@app.post("/review/<token>/presence")
def look(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    return _send(forms.look(views(), token, _inbox_cookie()))


@app.post("/review/<token>/release")
def release(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    return _send(forms.release(views(), token, _inbox_cookie()))


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
@app.route("/review/<token>/presence", method=[*OTHER_METHODS, "GET"])
@app.route("/review/<token>/release", method=[*OTHER_METHODS, "GET"])
@app.route("/inbox/<token>", method=[*OTHER_METHODS, "POST"])
@app.route("/inbox", method=[*OTHER_METHODS, "POST"])
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


@app.exception_handler(ClientError)
def service_error(exc: ClientError) -> Response:
    """An AWS call failed in a way that is not the reviewer's (a missing permission, a service
    error): the link was given back before this, so the reviewer may try again."""
    code = str(exc.response.get("Error", {}).get("Code", ""))
    logger.error("review request failed on an AWS call", extra={"error": code})
    return _refuse(503, "try-again", "the review service could not finish this; try again later")


@app.exception_handler(UnicodeError)
@app.exception_handler(ValueError)
def bad_request(exc: Exception) -> Response:
    logger.info("malformed review request", extra={"error": type(exc).__name__})
    return _refuse(400, "bad-request", "the request could not be read")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
