"""A validation's outcome: the XSD's verdict and each business rule that failed, with the
rule's id, severity and official text, in one JSON shape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

Severity = Literal["fatal", "warning"]


class FindingJson(TypedDict):
    rule: str
    severity: Severity
    text: str
    location: str | None


class ReportJson(TypedDict):
    xsd: Literal["passed", "failed"]
    xsdError: str | None
    rules: list[str]
    findings: list[FindingJson]
    skipped: list[str]


@dataclass(frozen=True)
class Finding:
    rule: str  # e.g. "BR-CO-15"
    severity: Severity
    text: str  # the rule's own text, as its schematron states it
    location: str | None = None  # the XPath of the element the rule fired on

    def to_json(self) -> FindingJson:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "text": self.text,
            "location": self.location,
        }


@dataclass(frozen=True)
class Report:
    """`xsd`: passed or failed; `rules`: which rule sets ran (name and version); `skipped`:
    rule sets that apply but could not run, and why; `findings`: failed rules. An invoice with
    a failed XSD, a fatal finding or a skipped rule set is not `valid`: it needs a person."""

    xsd: Literal["passed", "failed"]
    xsd_error: str | None
    rules: tuple[str, ...]
    findings: tuple[Finding, ...]
    skipped: tuple[str, ...] = ()

    @property
    def fatal(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "fatal")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def valid(self) -> bool:
        return self.xsd == "passed" and not self.fatal and not self.skipped

    def to_json(self) -> ReportJson:
        return {
            "xsd": self.xsd,
            "xsdError": self.xsd_error,
            "rules": list(self.rules),
            "findings": [f.to_json() for f in self.findings],
            "skipped": list(self.skipped),
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Report:
        return cls(
            xsd=value["xsd"],
            xsd_error=value["xsdError"],
            rules=tuple(value["rules"]),
            findings=tuple(Finding(**f) for f in value["findings"]),
            skipped=tuple(value["skipped"]),
        )
