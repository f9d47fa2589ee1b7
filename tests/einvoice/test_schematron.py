"""Schematron compiled to XSLT (docflow/einvoice/schematron.py): the semantics the XRechnung
rules rely on, on a schema written here, then KoSIT's rules on KoSIT's own test instances."""

from __future__ import annotations

from pathlib import Path

import pytest

from docflow.einvoice import validate
from docflow.einvoice.saxon import SaxonRules, findings
from docflow.einvoice.schematron import SchematronError, compile_schematron, shipped

DATA = Path(__file__).resolve().parents[1] / "data" / "einvoice"
SCHEMA = """<schema xmlns="http://purl.oclc.org/dsdl/schematron" queryBinding="xslt2">
  <ns prefix="o" uri="urn:orders"/>
  <pattern id="constants"><let name="LIMIT" value="100"/></pattern>
  <pattern id="lines">
    <rule context="o:line[@kind = 'free']">
      <assert test="o:price = 0" id="R-FREE" flag="fatal">a free line costs nothing</assert>
    </rule>
    <rule context="o:line">
      <let name="total" value="sum(o:price)"/>
      <assert test="$total le $LIMIT" id="R-LIMIT" flag="warning">in <name/> the price
        <value-of select="o:price"/> is over <value-of select="$LIMIT"/></assert>
    </rule>
  </pattern>
</schema>"""
ORDER = """<order xmlns="urn:orders">
  <line kind="free"><price>500</price></line>
  <line><price>150</price></line>
  <line><price>20</price></line>
</order>"""


def _run(tmp_path: Path, schema: str, xml: str) -> list[tuple[str, str, str]]:
    path = tmp_path / "rules.sch"
    path.write_text(schema)
    from saxonche import PySaxonProcessor

    with PySaxonProcessor(license=False) as saxon:
        sheet = saxon.new_xslt30_processor().compile_stylesheet(
            stylesheet_text=compile_schematron(path)
        )
        svrl = sheet.transform_to_string(xdm_node=saxon.parse_xml(xml_text=xml))
    return [(f.rule, f.severity, f.text) for f in findings(svrl.encode())]


def test_the_first_rule_that_matches_a_node_is_the_only_one_that_fires(tmp_path: Path) -> None:
    fired = _run(tmp_path, SCHEMA, ORDER)
    # The free line is held to R-FREE only (the general rule after it does not see it, though
    # its 500 is over the limit); the second line breaks the limit; the third passes.
    assert fired == [
        ("R-FREE", "fatal", "a free line costs nothing"),
        ("R-LIMIT", "warning", "in line the price 150 is over 100"),
    ]


@pytest.mark.parametrize(
    ("part", "refused"),
    [
        ('<pattern><rule context="x"><diagnostic-ref/></rule></pattern>', "diagnostic-ref"),
        ('<pattern><rule abstract="true" id="a"><assert test="1"/></rule></pattern>', "rule"),
        ('<pattern><rule context="x"><extends rule="a"/></rule></pattern>', "extends"),
    ],
)
def test_schematron_this_compiler_does_not_implement_is_refused_not_skipped(
    tmp_path: Path, part: str, refused: str
) -> None:
    path = tmp_path / "rules.sch"
    path.write_text(
        f'<schema xmlns="http://purl.oclc.org/dsdl/schematron" queryBinding="xslt2">{part}</schema>'
    )
    with pytest.raises(SchematronError, match=refused):
        compile_schematron(path)


def test_only_the_rule_files_shipped_here_are_compiled_by_name() -> None:
    with pytest.raises(SchematronError):
        shipped("../../../etc/passwd")


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("ubl-inv-br-de-16-negative-test-bt-151.xml", "BR-DE-16"),
        ("ubl-cn-br-de-16-negative-test-bt-95.xml", "BR-DE-16"),
        ("cii-br-de-16-negative-tests-bt-95-bt-151.xml", "BR-DE-16"),
        ("cii-br-de-18-wrong-whitespace.xml", "BR-DE-18"),
        ("cii-br-de-18-too-much-digits-after-dot.xml", "BR-DE-18"),
    ],
)
def test_kosits_negative_instances_break_the_rule_they_were_made_to_break(
    name: str, rule: str
) -> None:
    report = validate((DATA / "kosit-rules" / name).read_bytes(), SaxonRules())
    assert rule in {f.rule for f in report.fatal}
    assert any("KoSIT" in r for r in report.rules)
    assert not report.valid


def test_an_xrechnung_with_a_valid_skonto_line_passes_kosits_rules() -> None:
    report = validate((DATA / "kosit-rules" / "cii-br-de-18-test-skonto.xml").read_bytes())
    assert not {f.rule for f in report.fatal if f.rule.startswith("BR-DE")}


def test_kosits_rules_bind_an_xrechnung_only() -> None:
    xrechnung = validate((DATA / "kosit-xrechnung-01.01a-ubl.xml").read_bytes())
    plain = validate((DATA / "cen-ubl-example1.xml").read_bytes())
    assert len(xrechnung.rules) == 2 and xrechnung.valid
    # The CEN example has no buyer reference (BR-DE-15 would fire): it is no XRechnung.
    assert len(plain.rules) == 1 and plain.valid
