"""ISO Schematron (queryBinding xslt2) compiled to an XSLT 3.0 stylesheet whose output is SVRL,
for rule sets published only as `.sch` sources: KoSIT's XRechnung rules (`xrechnung/`).

Why our own: the compilers people use (SchXslt, the ISO skeleton for XSLT 2) are XSLT
libraries distributed outside PyPI, and lxml's `isoschematron` runs XSLT 1.0 only, while the
XRechnung rules are XPath 2 (`every ... satisfies`, sequences, `matches`). The subset compiled
is what those rule files use, and anything else is refused when compiling, never skipped:
`schema`, `ns`, `phase`/`active` (all patterns run: the files name one phase holding them all),
`include`, `pattern`, `rule`, `let`, `assert` and `report`, `xsl:function` at the top, and
in messages `name` and `value-of`. The semantics kept: in a pattern, a node is matched by the
first rule whose context matches it (one mode per pattern, rules by descending priority); a
pattern's `let` is global (the rule files declare their constants that way), a rule's `let`
is local to the rule.
"""

from __future__ import annotations

from copy import deepcopy
from functools import cache
from importlib import resources
from pathlib import Path

from lxml import etree

from docflow.einvoice.safe_xml import parse

SCH = "http://purl.oclc.org/dsdl/schematron"
XSL = "http://www.w3.org/1999/XSL/Transform"
SVRL = "http://purl.oclc.org/dsdl/svrl"
XS = "http://www.w3.org/2001/XMLSchema"
_IGNORED = {"title", "p", "phase", "active", "diagnostics"}


class SchematronError(ValueError):
    """A rule file uses Schematron this compiler does not implement."""


def _q(ns: str, local: str) -> str:
    return f"{{{ns}}}{local}"


def _sch_children(element: etree._Element) -> list[etree._Element]:
    return [c for c in element if isinstance(c.tag, str)]


def _local(element: etree._Element) -> str:
    if etree.QName(element).namespace != SCH:
        raise SchematronError(f"not a Schematron element: {element.tag}")
    return etree.QName(element).localname


def _patterns(schema: etree._Element, base: Path) -> list[etree._Element]:
    """The schema's patterns in order, each `include` read in its place."""
    found = []
    for child in _sch_children(schema):
        if etree.QName(child).namespace == XSL:
            continue  # an XSLT function the rules call: copied as it is (compile_schematron)
        name = _local(child)
        if name == "include":
            included = parse((base.parent / child.get("href", "")).read_bytes())
            if _local(included) != "pattern":
                raise SchematronError("an include names no pattern")
            found.append(included)
        elif name == "pattern":
            found.append(child)
        elif name not in _IGNORED | {"ns", "let"}:
            raise SchematronError(f"unsupported in a schema: {name}")
    return found


def _message(target: etree._Element, source: etree._Element) -> None:
    """An assertion's text with its `name` and `value-of`, as xsl:text and xsl:value-of."""
    text = etree.SubElement(target, _q(SVRL, "text"))

    def add_text(value: str | None) -> None:
        if not value:
            return
        node = etree.SubElement(text, _q(XSL, "text"))
        node.text = value

    add_text(source.text)
    for child in source:
        if not isinstance(child.tag, str):
            add_text(child.tail)
            continue
        name = _local(child)
        if name == "name":
            etree.SubElement(text, _q(XSL, "value-of"), select=f"name({child.get('path') or '.'})")
        elif name == "value-of":
            etree.SubElement(text, _q(XSL, "value-of"), select=child.get("select", ""))
        else:
            raise SchematronError(f"unsupported in a message: {name}")
        add_text(child.tail)


def _check(template: etree._Element, check: etree._Element, failed: bool) -> None:
    test = check.get("test", "")
    when = etree.SubElement(template, _q(XSL, "if"))
    when.set("test", f"not({test})" if failed else test)
    out = etree.SubElement(when, _q(SVRL, "failed-assert" if failed else "successful-report"))
    for key in ("id", "flag"):
        if check.get(key):
            out.set(key, check.get(key, ""))
    out.set("test", test)
    location = etree.SubElement(out, _q(XSL, "attribute"))
    location.set("name", "location")
    location.set("select", "path()")
    _message(out, check)


def _variable(parent: etree._Element, let: etree._Element) -> None:
    variable = etree.SubElement(parent, _q(XSL, "variable"))
    variable.set("name", let.get("name", ""))
    variable.set("select", let.get("value", ""))


def _pattern(
    sheet: etree._Element, report: etree._Element, mode: str, pattern: etree._Element
) -> None:
    """A pattern as one mode: the root applies it, each rule is a template of the mode."""
    apply = etree.SubElement(report, _q(XSL, "apply-templates"))
    apply.set("select", "/")
    apply.set("mode", mode)
    # What no rule matches: its attributes and children are still visited.
    walk = etree.SubElement(sheet, _q(XSL, "template"))
    walk.set("match", "node() | @*")
    walk.set("mode", mode)
    walk.set("priority", "-1")
    etree.SubElement(walk, _q(XSL, "apply-templates"), select="@* | *", mode=mode)
    for order, rule in enumerate(_sch_children(pattern)):
        name = _local(rule)
        if name == "let":
            _variable(sheet, rule)
            continue
        if name in _IGNORED:
            continue
        if name != "rule" or rule.get("abstract") == "true" or rule.get("context") is None:
            raise SchematronError(f"unsupported in a pattern: {name}")
        template = etree.SubElement(sheet, _q(XSL, "template"))
        template.set("match", rule.get("context", ""))
        template.set("mode", mode)
        template.set("priority", str(10_000 - order))  # the first rule that matches
        for check in _sch_children(rule):
            kind = _local(check)
            if kind == "let":
                _variable(template, check)
            elif kind in ("assert", "report"):
                _check(template, check, failed=kind == "assert")
            else:
                raise SchematronError(f"unsupported in a rule: {kind}")
        etree.SubElement(template, _q(XSL, "apply-templates"), select="@* | *", mode=mode)


def compile_schematron(path: Path) -> str:
    schema = parse(path.read_bytes())
    if _local(schema) != "schema" or schema.get("queryBinding", "xslt2") not in (
        "xslt2",
        "xslt3",
    ):
        raise SchematronError("not an XSLT 2 Schematron schema")
    # The schema's own prefixes (its functions' `u:`), XML Schema's types, then its `ns`.
    nsmap = {**{k: v for k, v in schema.nsmap.items() if k}, "xs": XS, "xsl": XSL, "svrl": SVRL}
    for ns in schema.iter(_q(SCH, "ns")):
        nsmap[ns.get("prefix", "")] = ns.get("uri", "")
    sheet = etree.Element(_q(XSL, "stylesheet"), nsmap=nsmap)
    sheet.set("version", "3.0")
    for let in schema.iterchildren(_q(SCH, "let")):
        _variable(sheet, let)
    for function in schema.iterchildren(_q(XSL, "function")):
        sheet.append(deepcopy(function))
    root = etree.SubElement(sheet, _q(XSL, "template"))
    root.set("match", "/")
    report = etree.SubElement(root, _q(SVRL, "schematron-output"))
    for index, pattern in enumerate(_patterns(schema, path)):
        _pattern(sheet, report, f"p{index}", pattern)
    return etree.tostring(sheet, encoding="unicode")


# The KoSIT XRechnung rule files shipped here (Apache-2.0; xrechnung/LICENSE, docs/einvoice.md).
XRECHNUNG_RULES = "KoSIT xrechnung-schematron 3098f3d, XRechnung 3.0"
XRECHNUNG = {
    "ubl": "xrechnung/ubl/XRechnung-UBL-validation.sch",
    "cii": "xrechnung/cii/XRechnung-CII-validation.sch",
}


@cache
def shipped(name: str) -> str:
    """A rule file shipped in this package, compiled once per process."""
    if name not in XRECHNUNG.values():
        raise SchematronError(f"not a rule file shipped here: {name!r}")
    path = Path(str(resources.files("docflow.einvoice").joinpath(name)))
    return compile_schematron(path)
