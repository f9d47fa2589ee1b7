"""The reviewers' door: a Lambda Function URL (AuthType NONE; the signed link is the check).

    GET  /review/{token}     the confirm page; sends a heartbeat; decides nothing
    POST /review/{token}     the page's Approve / Reject: consumes the link, resumes the run
    POST /callbacks/{token}  a service completing a machine link, HMAC-signed with a time window

Every bad request gets a 4xx page (or JSON, if asked) and sends no callback.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver, Response

from docflow.observability import logger
from docflow.reporting import build_reporter
from docflow.review.desk import LambdaCallbackSender, ReviewDesk, ReviewRefused
from docflow.review.keys import build_key_source
from docflow.review.links import LinkStore
from docflow.review.pages import (
    SECURITY_HEADERS,
    outcome_page,
    refusal_page,
    review_page,
)
from docflow.settings import load_settings

app = LambdaFunctionUrlResolver()
_desk: ReviewDesk | None = None
OTHER_METHODS = ["PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def desk() -> ReviewDesk:
    global _desk
    if _desk is None:
        s = load_settings()
        _desk = ReviewDesk(
            build_key_source(s), LinkStore(s.links_table), LambdaCallbackSender(), build_reporter(s)
        )
    return _desk


def use_desk(value: ReviewDesk | None) -> None:
    global _desk
    _desk = value


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


@app.get("/review/<token>")
def show(token: str) -> Response:
    view = desk().open(token)
    data = {
        "documentId": view.claims.document_id,
        "stage": view.claims.stage_name,
        "waiting": view.waiting,
        "summary": view.link.get("summary", {}),
    }
    return _answer(200, review_page(view.link, view.waiting), data)


@app.post("/review/<token>")
def decide(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    form = parse_qs(_body().decode("utf-8", "replace"), max_num_fields=10)
    choice = (form.get("decision") or [""])[0]
    if choice not in ("approve", "reject"):
        return _refuse(400, "no-decision", "choose Approve or Reject")
    decision = desk().decide(token, choice == "approve", (form.get("comment") or [""])[0])
    return _answer(200, outcome_page(decision), {"decision": decision})


@app.post("/callbacks/<token>")
def machine(token: str) -> Response:
    if _too_big():
        return _refuse(413, "too-large", "the request body is too large")
    headers = app.current_event.headers or {}
    decision = desk().machine(
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
@app.route("/callbacks/<token>", method=[*OTHER_METHODS, "GET"])
def wrong_method(token: str) -> Response:
    return _refuse(405, "method-not-allowed", "this address does not accept that method")


@app.not_found
def not_found(_: Exception) -> Response:
    return _refuse(404, "not-found", "there is nothing at this address")


@app.exception_handler(ReviewRefused)
def refused(exc: ReviewRefused) -> Response:
    logger.info("review request refused", extra={"status": exc.status, "code": exc.code})
    return _refuse(exc.status, exc.code, str(exc), exc.link)


@app.exception_handler(UnicodeError)
@app.exception_handler(ValueError)
def bad_request(exc: Exception) -> Response:
    logger.info("malformed review request", extra={"error": type(exc).__name__})
    return _refuse(400, "bad-request", "the request could not be read")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
