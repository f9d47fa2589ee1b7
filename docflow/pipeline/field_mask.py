"""Pure: no detected number leaves the extract step through a field (issue 43, item 5).

The extract step reads values from the page text, and a value can be a card number read as a
"PO number". The step's full answer (`fields.json`, S3) keeps it whole; everything it returns
(the checkpoint, hence the read model, the domain events, `final.json` and every page) carries
the value masked as the review page masks page text (the detector's own mask: last four kept),
the field marked `"masked": <detector>`, and a `sensitive-value` finding that sends the
document to its privacy stage.

Which detectors mask: the rules' `[sensitive] review_on` (the ones that send a document to
review). An IBAN is left whole on the types where the issuer's IBAN is expected content
(`issuer_iban_types`): the supplier registry judges whose it is, and a payment needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from docflow.document import Check
from docflow.document.shown import FieldValue
from docflow.rules.detectors import find_all
from docflow.rules.model import Rules
from docflow.rules.routed import RoutedStage

SENSITIVE_VALUE = "sensitive-value"
SENSITIVE = "sensitive"


def field_detectors(rules: Rules, doc_type: str) -> tuple[str, ...]:
    """The detectors whose findings a field value may not carry out of the step."""
    expected = ("iban",) if doc_type in rules.issuer_iban_types else ()
    return tuple(d for d in rules.review_on if d not in expected)


def mask_text(text: str, detectors: tuple[str, ...]) -> tuple[str, list[str]]:
    """`text` with each finding of `detectors` replaced by its mask; the detectors that fired."""
    if not detectors:
        return text, []
    out, last, fired = [], 0, []
    for finding in find_all(text, detectors):
        out.append(text[last : finding.start])
        out.append(finding.masked)
        fired.append(finding.detector)
        last = finding.end
    out.append(text[last:])
    return "".join(out), fired


def mask_fields(
    fields: Mapping[str, FieldValue], detectors: tuple[str, ...]
) -> tuple[dict[str, FieldValue], list[Check]]:
    """The fields with every detected value masked and marked, and one finding per such field
    (a check whose message names the kind, never the value)."""
    masked: dict[str, FieldValue] = {}
    findings: list[Check] = []
    for name, field in fields.items():
        value = field.get("value")
        shown, fired = mask_text(value, detectors) if isinstance(value, str) else ("", [])
        rows, fired_in_rows = _mask_rows(field, detectors)
        fired += fired_in_rows
        if not fired:
            masked[name] = field
            continue
        kind = fired[0]
        masked[name] = {**field, "masked": kind}
        if isinstance(value, str):
            masked[name]["value"] = shown
        if rows is not None:
            masked[name]["rows"] = rows
        message = (
            f"{name} holds a {kind.replace('_', ' ')}: shown masked; the whole value is kept "
            "only in the step's full answer"
        )
        findings.append(Check(SENSITIVE_VALUE, message, name))
    return masked, findings


def _mask_rows(
    field: FieldValue, detectors: tuple[str, ...]
) -> tuple[list[dict[str, str]] | None, list[str]]:
    """A table field's rows with every cell masked (a statement's line can carry a card)."""
    rows = field.get("rows")
    if not isinstance(rows, list):
        return None, []
    fired: list[str] = []
    out = []
    for row in rows:
        cells = {}
        for column, cell in row.items():
            cells[column], found = (
                mask_text(cell, detectors) if isinstance(cell, str) else (cell, [])
            )
            fired += found
        out.append(cells)
    return out, fired


def mask_checks(checks: Sequence[Check], detectors: tuple[str, ...]) -> list[Check]:
    """Check messages quote values (an OCR repair, an order's figures): masked the same way."""
    return [replace(c, message=mask_text(c.message, detectors)[0]) for c in checks]


def privacy_stage(rules: Rules, findings: Sequence[Check]) -> list[RoutedStage]:
    """The privacy stage a masked field routes to (none when the rules name none)."""
    name = rules.sensitive_stage
    if not findings or not name or name not in rules.stages:
        return []
    return [RoutedStage.of(rules.stages[name], SENSITIVE)]


def sensitive_once(stages: Sequence[RoutedStage]) -> list[RoutedStage]:
    """The run's stage list with a later `sensitive` stage dropped when its stage is already on
    the list (classify routed privacy, or the IBAN rule put it back): one privacy review.
    Before masked fields no list had a stage twice, so recorded runs keep their lists."""
    seen: set[str] = set()
    kept = []
    for stage in stages:
        name = stage.name
        if name in seen and stage.because == SENSITIVE:
            continue
        seen.add(name)
        kept.append(stage)
    return kept
