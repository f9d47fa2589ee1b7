"""`docflow show`'s part for an e-invoice (docs/einvoice.md): its lines and VAT breakdown.

Read from `final.json` once the document is finalized (what was recorded is what was paid on),
else from the `einvoice.json` its summary's `einvoice.key` names (a waiting or archived
invoice); the rules' texts and the currency always from einvoice.json. The read model carries
only counts and sums: the lines are only ever in S3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from docflow.cli.output import table

if TYPE_CHECKING:
    from docflow.einvoice.record import LineJson, VatJson
    from docflow.einvoice.stored import EInvoiceFile

DESCRIPTION_WIDTH = 40  # a line's description in the terminal; --json has it whole
RULE_WIDTH = 100  # a rule's text likewise


class FindingShown(TypedDict):
    rule: str | None
    severity: str | None
    text: str | None


class EInvoiceShow(TypedDict):
    """`show --json`'s `einvoice` (docs/cli.md): the lines and VAT breakdown read from
    `readFrom` (None, and the lines None, when neither file could be read)."""

    source: object
    currency: str | None
    findings: list[FindingShown]
    readFrom: str | None
    lines: list[LineJson] | None
    vat: list[VatJson] | None


class FinalLines(TypedDict, total=False):
    """What `show` reads of a finalized e-invoice's final.json: the lines it was paid on."""

    lines: list[LineJson]
    vat: list[VatJson]


def _read(key: str) -> Any:
    """An S3 JSON object of the artifact bucket; None when it is not there or no object."""
    from botocore.exceptions import ClientError

    from docflow import aws
    from docflow.settings import load_settings
    from docflow.storage import DocumentStore

    try:
        value = DocumentStore(load_settings().artifact_bucket).get_json(key)
    except ClientError as exc:
        if aws.error_code(exc) in ("NoSuchKey", "404"):
            return None
        raise
    return value if isinstance(value, dict) else None


def einvoice_data(state: Mapping[str, object]) -> EInvoiceShow | None:
    """`show --json`'s `einvoice` object; None for a document that is no e-invoice."""
    about = state.get("einvoice")
    if not isinstance(about, dict):
        return None
    stored: EInvoiceFile | None = _read(str(about["key"])) if about.get("key") else None
    invoice = (stored.get("invoice") if stored else None) or {}
    report = stored.get("report") if stored else None
    found: EInvoiceShow = {
        "source": about.get("source"),
        "currency": invoice.get("currency"),
        "findings": [
            {"rule": f.get("rule"), "severity": f.get("severity"), "text": f.get("text")}
            for f in (report.get("findings") if report else None) or []
        ],
        "readFrom": None,
        "lines": None,
        "vat": None,
    }
    final = state.get("resultKey") if state.get("status") == "finalized" else None
    record: FinalLines | None = _read(str(final)) if final else None
    if record is not None and isinstance(record.get("lines"), list):
        found["readFrom"], found["lines"] = str(final), record["lines"]
        found["vat"] = record.get("vat") or []
    elif invoice:
        found["readFrom"], found["lines"] = about["key"], invoice.get("lines") or []
        found["vat"] = invoice.get("vat") or []
    return found


def _cut(text: object, width: int = DESCRIPTION_WIDTH) -> str:
    words = " ".join(str(text or "").split())
    return words if len(words) <= width else words[: width - 1] + "…"


def _line_id(line: Mapping[str, Any], n: int) -> str:
    """Its id in the data (BT-126), or its place where a sender repeated the description."""
    line_id = line.get("line_id")
    return str(line_id) if line_id and line_id != line.get("description") else str(n)


def _head(about: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    """Where the invoice came from and what its rules said, one rule a line."""
    from docflow.review.web.einvoice_view import SYNTAXES

    syntax = SYNTAXES.get(str(about.get("syntax")), str(about.get("syntax")))
    how = "sent as XML data" if about.get("source") == "xml" else "a PDF carrying XML data"
    said = [f"{how} ({syntax}), type code {about.get('typeCode')}"]
    if about.get("customization"):
        said.append(f"follows {about['customization']}")
    lines = [f"{'e-invoice':11} {'; '.join(said)}"]
    texts = {f["rule"]: f["text"] for f in found.get("findings") or []}
    fatal = about.get("fatal") or []
    lines.append(f"{'rules':11} " + ("broken:" if fatal else "none broken"))
    for rule in fatal:
        text = str(texts.get(rule) or "").removeprefix(f"[{rule}]-")
        lines.append(f"{'':11}   {rule:9} {_cut(text, RULE_WIDTH)}".rstrip())
    for skipped in about.get("skipped") or []:
        lines.append(f"{'':11} not checked: {skipped}")
    if about.get("warnings"):
        n = about["warnings"]
        lines.append(f"{'':11} and {n} warning{'s' if n != 1 else ''} (shown, never routed)")
    return lines


def einvoice_lines(state: Mapping[str, object], found: Mapping[str, Any] | None) -> list[str]:
    """What `show` prints of an e-invoice: where it came from and what its rules said, then
    its lines and VAT breakdown as two tables, amounts exactly as the XML wrote them."""
    from docflow.review.web.einvoice_view import UNITS, VAT_CATEGORIES, named

    about = state.get("einvoice")
    if not isinstance(about, dict) or found is None:
        return []
    lines = _head(about, found)
    if found.get("lines") is None:
        return [*lines, f"{'lines':11} could not be read ({about.get('key')} is missing)"]
    rows = [
        [
            _line_id(line, n),
            _cut(line.get("description")),
            line.get("quantity") or "",
            named(line.get("unit"), UNITS),
            line.get("unit_price") or "",
            line.get("net") or "",
            f"{line.get('vat_category') or ''} {line.get('vat_rate') or ''}".strip(),
        ]
        for n, line in enumerate(found["lines"], start=1)
    ]
    currency = found.get("currency") or ""
    amounts = f"amounts in {currency}, " if currency else ""
    headers = ["line", "description", "quantity", "unit", "unit price", "net", "VAT cat. rate %"]
    lines += ["", f"lines ({len(rows)}; {amounts}read from {found['readFrom']}):"]
    lines.append(table(rows, headers))
    vat = [
        [
            named(v.get("category"), VAT_CATEGORIES),
            v.get("rate") or "",
            v.get("taxable"),
            v.get("tax"),
        ]
        for v in found.get("vat") or []
    ]
    lines += ["", "VAT breakdown:", table(vat, ["category", "rate %", "taxable amount", "VAT"])]
    return lines
