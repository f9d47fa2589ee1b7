"""What a review page's Approve / Reject POST says, read once into a typed form.

The callback API's form handler (`docflow.review.web.forms`) parses the body into a
`DecisionForm` and hands it to the desk, which checks all of it against the link (the reject
reason, the triage type, the split, the corrections) and answers a `FieldProblem` naming the
field a problem concerns. Nothing here checks anything against the link: it only reads the
fields the page's template sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs

MAX_FIELDS = 5_100  # a split page's checkboxes (up to the pages a packet may have) and a few
APPROVE, REJECT = "approve", "reject"


@dataclass(frozen=True)
class DecisionForm:
    decision: str = ""  # "approve" or "reject"; anything else decides nothing
    reason: str = ""  # a rejection's reason (`access.refusals.REJECT_REASONS`)
    comment: str = ""
    doc_type: str = ""  # a triage page's pick, or `unclassifiable` ("none of these")
    fields: dict[str, str] = field(default_factory=dict)  # `field.<name>` inputs, stripped
    add_supplier: bool = False  # "add this supplier", with an approval only
    starts: tuple[str, ...] = ()  # a split page's ticked "a new document starts here" pages

    @property
    def approved(self) -> bool:
        return self.decision == APPROVE

    @classmethod
    def parse(cls, body: str) -> DecisionForm:
        """The form from a urlencoded body; the body's own size limit bounds the fields."""
        form = parse_qs(body, max_num_fields=MAX_FIELDS)

        def one(name: str) -> str:
            return (form.get(name) or [""])[0]

        decision = one("decision")
        return cls(
            decision=decision,
            reason=one("reason"),
            comment=one("comment"),
            doc_type=one("docType"),
            fields={k[6:]: v[0].strip() for k, v in form.items() if k.startswith("field.")},
            add_supplier=decision == APPROVE and one("addSupplier") == "yes",
            starts=tuple(form.get("start") or ()),
        )
