"""Who runs the EN 16931 schematron for this process: Saxon here, or the e-invoice rules
function (einvoice_rules/app.py) where Saxon is not installed.

A Lambda function holds 250 MB unzipped; the pipeline's dependencies take 185 MB and Saxon
113 MB, so in AWS the orchestrator sends the XML to a function that carries Saxon and little
else, named by DOCFLOW_EINVOICE_RULES_FUNCTION. The local stack sets it too (its function host
runs the rules function), so the path AWS takes is the path the local runs take. The XML
travels gzipped in the request (an Invoke request holds 6 MB; an invoice is capped at 5 MB
and compresses about tenfold)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import zlib
from collections.abc import Mapping
from typing import Any, Protocol, TypedDict

from docflow import aws
from docflow.einvoice.errors import RULES_REFUSED, EInvoiceError, RulesRefused
from docflow.einvoice.report import Finding, FindingJson
from docflow.einvoice.safe_xml import MAX_XML_BYTES, parse
from docflow.einvoice.saxon import SaxonRules, saxon_installed

RULES_FUNCTION_ENV = "DOCFLOW_EINVOICE_RULES_FUNCTION"


class RulesRunner(Protocol):
    name: str

    def run(self, stylesheet: str, xml: str) -> tuple[Finding, ...]: ...


class RulesFunctionError(RuntimeError):
    """The rules function failed (crashed, timed out, was sent what it does not take): the
    step retries. It says which function and Lambda's error type, never the error's message
    or stack trace (a Java message, the function's paths): those are in its own log."""


class RulesFunction:
    name = "rules function"

    def __init__(self, function: str) -> None:
        self.function = function

    def run(self, stylesheet: str, xml: str) -> tuple[Finding, ...]:
        response = aws.invoke_client().invoke(
            FunctionName=self.function,
            Payload=json.dumps(rules_request(stylesheet, xml)).encode(),
        )
        body = response["Payload"].read()
        if response.get("FunctionError"):
            raise RulesFunctionError(f"the rules function {self.function} failed: {_kind(body)}")
        answer = json.loads(body)
        if "refused" in answer:
            refused = answer["refused"]
            raise RulesRefused(_code(refused.get("reason")), str(refused.get("message"))[:300])
        return tuple(Finding(**f) for f in answer["findings"])


def rules_runner(environ: Mapping[str, str] | None = None) -> RulesRunner | None:
    """The rules function when one is named (AWS, the local stack); else Saxon in this process
    when installed (tests, the bench); else none: the rules are reported skipped."""
    function = (os.environ if environ is None else environ).get(RULES_FUNCTION_ENV)
    if function:
        return RulesFunction(function)
    return SaxonRules() if saxon_installed() else None


class RulesRequest(TypedDict):
    """What the rules function is sent: the rule set's stylesheet name and the XML, gzipped
    and base64 (an invoice's XML is larger than it needs to be on the wire)."""

    stylesheet: str
    xmlGzip: str


class RulesRefusal(TypedDict):
    reason: str
    message: str


class RulesAnswer(TypedDict, total=False):
    """The rules function's answer: the failed assertions, or why it could not run them."""

    findings: list[FindingJson]
    refused: RulesRefusal


def rules_request(stylesheet: str, xml: str) -> RulesRequest:
    packed = base64.b64encode(gzip.compress(xml.encode(), compresslevel=6)).decode()
    return {"stylesheet": stylesheet, "xmlGzip": packed}


def rules_answer(event: RulesRequest) -> RulesAnswer:
    """The rules function's answer to a request: every failed assertion, as Findings' JSON,
    or `{"refused": {"reason", "message"}}` for an XML the rules cannot be run on (over the
    safe parser's caps, which its caller applies too, or refused by Saxon)."""
    stylesheet, packed = event["stylesheet"], event["xmlGzip"]
    # Inflated no further than an invoice may be: a request is trusted, not unbounded.
    inflate = zlib.decompressobj(wbits=31)
    xml = inflate.decompress(base64.b64decode(packed, validate=True), MAX_XML_BYTES + 1)
    if len(xml) > MAX_XML_BYTES or inflate.unconsumed_tail:
        raise ValueError(f"the XML is over {MAX_XML_BYTES} bytes")
    try:
        parse(xml)  # the caps first: Saxon is given only what they let through
        found = SaxonRules().run(stylesheet, xml.decode())
    except (EInvoiceError, RulesRefused) as err:
        return {"refused": {"reason": err.reason, "message": err.message}}
    return {"findings": [f.to_json() for f in found]}


_ERROR_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,63}")


def _kind(body: bytes) -> str:
    """Lambda's errorType of a failed invocation when it is a plain name, else `unknown`."""
    try:
        kind = json.loads(body).get("errorType")
    except (ValueError, AttributeError):
        return "unknown"
    return kind if isinstance(kind, str) and _ERROR_TYPE.fullmatch(kind) else "unknown"


def _code(reason: Any) -> str:
    return (
        reason
        if isinstance(reason, str) and re.fullmatch(r"[a-z-]{1,40}", reason)
        else RULES_REFUSED
    )
