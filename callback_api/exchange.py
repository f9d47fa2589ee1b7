"""Reading a Function URL request and writing its answer: the body within its limit, the query,
the inbox cookie, HTML or JSON as the client asked. The routes in `app.py` use these."""

from __future__ import annotations

import json
from typing import TypedDict

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.cookies import Cookie, SameSite
from aws_lambda_powertools.utilities.data_classes import LambdaFunctionUrlEvent

from docflow.review.votes import Counted
from docflow.review.web.answers import Answer
from docflow.review.web.templating import SECURITY_HEADERS

# The inbox link rides in this cookie, never in a review URL or page: a forwarded review link
# carries no power over the reviewer's other items. HttpOnly (no script reads it), SameSite
# Strict (a link from a mail or another site does not send it), a working day long.
INBOX_COOKIE = "docflow_inbox"
INBOX_COOKIE_S = 8 * 3600


class MachineAnswer(TypedDict):
    """What a machine's callback is answered: the decision it made, counted."""

    decision: Counted


class InboxQuery(TypedDict):
    """The inbox page's query, as `InboxViews.page` takes it."""

    stage: str
    doc_type: str
    cursor: str
    at: int
    back: str


def wants_json(event: LambdaFunctionUrlEvent) -> bool:
    accept = (event.headers or {}).get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def send(
    event: LambdaFunctionUrlEvent, answer: Answer, cookies: list[Cookie] | None = None
) -> Response:
    if wants_json(event):
        body = json.dumps(answer.data)
        return Response(answer.status, "application/json", body, dict(SECURITY_HEADERS), cookies)
    html = "text/html; charset=utf-8"
    return Response(answer.status, html, answer.html, dict(SECURITY_HEADERS), cookies)


def send_json(data: MachineAnswer) -> Response:
    """A machine's answer: JSON, whatever it asked for."""
    return Response(200, "application/json", json.dumps(data), dict(SECURITY_HEADERS))


def inbox_cookie(event: LambdaFunctionUrlEvent) -> str:
    """The inbox link this browser opened the inbox with ("" if none)."""
    parts = list(event.get("cookies") or [])
    parts += ((event.headers or {}).get("cookie") or "").split(";")
    for part in parts:
        name, _, value = part.strip().partition("=")
        if name == INBOX_COOKIE:
            return value[:2200]
    return ""


def set_inbox_cookie(token: str) -> Cookie:
    return Cookie(
        INBOX_COOKIE,
        token,
        path="/",
        secure=True,
        http_only=True,
        max_age=INBOX_COOKIE_S,
        same_site=SameSite.STRICT_MODE,
    )


def body(event: LambdaFunctionUrlEvent) -> bytes:
    raw = event.decoded_body or ""
    return raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)


def too_big(event: LambdaFunctionUrlEvent, limit: int) -> bool:
    declared = (event.headers or {}).get("content-length", "0")
    return (declared.isdigit() and int(declared) > limit) or len(body(event)) > limit


def query(event: LambdaFunctionUrlEvent, name: str) -> str:
    return (event.query_string_parameters or {}).get(name, "")


def offset(event: LambdaFunctionUrlEvent) -> int:
    """The review page's `?from=` (which text page to start at); 0 unless a small number."""
    raw = query(event, "from") or "0"
    return int(raw) if raw.isdigit() and len(raw) < 7 else 0


def inbox_query(event: LambdaFunctionUrlEvent) -> InboxQuery:
    """The inbox page's `?stage=&type=&page=&at=&back=`, each cut to its longest sane size."""
    at = query(event, "at")
    return {
        "stage": query(event, "stage"),
        "doc_type": query(event, "type"),
        "cursor": query(event, "page")[:2048],
        "at": int(at) if at.isdigit() and len(at) < 4 else 0,
        "back": query(event, "back")[:4096],
    }


def machine_signature(event: LambdaFunctionUrlEvent) -> tuple[str, str]:
    """A machine callback's signing time and HMAC, from its headers ("" where absent)."""
    headers = event.headers or {}
    return headers.get("x-docflow-timestamp", ""), headers.get("x-docflow-signature", "")
