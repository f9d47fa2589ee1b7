"""The reviewers' door: a Lambda Function URL (AuthType NONE; the signed link is the check).
Routes only: what each answers is built in `docflow.review.web` (views, forms, answers).

    GET  /review/{token}            the review page; sends a heartbeat; decides nothing
    GET  /review/{token}/pages/{n}  page n's preview (PNG; `?size=thumb` 300 px wide), cached
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
Before all of it, with CloudFront in front, a request that went around it is refused (403).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver, Response
from botocore.exceptions import ClientError

from callback_api import exchange
from docflow.observability import logger
from docflow.review.access.inbox_links import InboxRefused
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.origin import through_the_edge
from docflow.review.access.refusals import ReviewRefused
from docflow.review.web import forms
from docflow.review.web.answers import inbox_answer, refusal, review_answer
from docflow.review.web.templating import SECURITY_HEADERS
from docflow.review.web.views import ReviewViews
from docflow.settings import load_settings
from docflow.telemetry import spans

app = LambdaFunctionUrlResolver()
_views: ReviewViews | None = None
OTHER_METHODS = ["PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def views() -> ReviewViews:
    global _views
    _views = _views or ReviewViews.from_settings(load_settings())
    return _views


def use_views(value: ReviewViews | None) -> None:
    global _views
    _views = value


def _refuse(status: int, code: str, message: str, link: LinkRecord | None = None) -> Response:
    return exchange.send(app.current_event, refusal(status, code, message, link))


def _within_limit(resolver: LambdaFunctionUrlResolver, next_middleware: Any) -> Response:
    """A request whose body is over the limit is refused before it is read."""
    if exchange.too_big(resolver.current_event, load_settings().callback_max_body_bytes):
        return _refuse(413, "too-large", "the request body is too large")
    return next_middleware(resolver)


# First the edge (docflow.review.access.origin), then the size, then the route.
app.use(middlewares=[through_the_edge(_refuse), _within_limit])


def _inbox_answer(token: str) -> Response:
    event = app.current_event
    screen = views().inbox.page(token, **exchange.inbox_query(event))
    return exchange.send(event, inbox_answer(screen), [exchange.set_inbox_cookie(token)])


@app.get("/inbox/<token>")
def inbox(token: str) -> Response:
    return _inbox_answer(token)


@app.get("/inbox")
def inbox_again() -> Response:
    """The way back from a review page: the inbox this browser opened (its cookie)."""
    token = exchange.inbox_cookie(app.current_event)
    if not token:
        return _refuse(403, "no-inbox", "open your inbox from its link in your mail")
    return _inbox_answer(token)


@app.get("/review/<token>")
def show(token: str) -> Response:
    event = app.current_event
    inbox, confirm = exchange.inbox_cookie(event), exchange.query(event, "confirm")
    page = views().review(token, exchange.offset(event), inbox=inbox, confirm=confirm)
    return exchange.send(event, review_answer(page))


@app.get("/review/<token>/pages/<number>")
def preview(token: str, number: str) -> Response:
    png, cached = views().preview(token, number, exchange.query(app.current_event, "size"))
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
    event = app.current_event
    form = exchange.body(event).decode("utf-8", "replace")
    answer = forms.decide(views(), token, form, exchange.inbox_cookie(event))
    return exchange.send(event, answer)


@app.post("/review/<token>/presence")
def look(token: str) -> Response:
    event = app.current_event
    return exchange.send(event, forms.look(views(), token, exchange.inbox_cookie(event)))


@app.post("/review/<token>/release")
def release(token: str) -> Response:
    event = app.current_event
    return exchange.send(event, forms.release(views(), token, exchange.inbox_cookie(event)))


@app.post("/callbacks/<token>")
def machine(token: str) -> Response:
    event, window = app.current_event, load_settings().machine_callback_window_s
    signed = exchange.machine_signature(event)
    decision = views().desk.machine(token, exchange.body(event), *signed, window)
    return exchange.send_json({"decision": decision})


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
@app.exception_handler(InboxRefused)
def refused(exc: ReviewRefused | InboxRefused) -> Response:
    what = "inbox" if isinstance(exc, InboxRefused) else "review"
    logger.info(f"{what} request refused", extra={"status": exc.status, "code": exc.code})
    return _refuse(exc.status, exc.code, str(exc), getattr(exc, "link", None))


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
    try:
        return app.resolve(event, context)
    finally:
        spans.flush()
