"""What the review page is given, as two records: what it shows of the document (`Shown`) and
what the reviewer sent when the page comes back to them (`Answered`); and what the rules route
on (`Routing`), for the page's "why" panel."""

from __future__ import annotations

from dataclasses import dataclass

from docflow.extract.declarations.model import TypeDecl
from docflow.review.access.link_record import LinkRecord
from docflow.review.decision_form import TypedRow
from docflow.review.stage.masking import Segment
from docflow.review.stage.stage_record import Presence, StageRecord
from docflow.review.web.einvoice_view import InvoiceView
from docflow.review.web.evidence import PageFacts


@dataclass(frozen=True)
class Routing:
    """What the rules say about this document, for the "why" panel."""

    review_on: tuple[str, ...]
    min_confidence: float


@dataclass(frozen=True)
class Shown:
    """What the review page shows: the reviewer's link (the summary it carries), the page's
    own address, the document's pages and the order they are shown in (from `shown_from`,
    a window of them with their masked `texts`), what the rules route on, the stage's
    deadline and record, the reasons a rejection may give, the type's declaration, an
    e-invoice's data, who else has the page open, and the inbox the reviewer came from."""

    link: LinkRecord
    base: str
    pages: list[PageFacts]
    order: list[int]
    shown_from: int
    texts: dict[int, list[Segment]]
    routing: Routing
    deadline: int | None
    flagged: int
    reasons: dict[str, str]
    stage: StageRecord | None = None
    decl: TypeDecl | None = None
    invoice: InvoiceView | None = None
    presence: Presence | None = None
    inbox: str = ""


@dataclass(frozen=True)
class Answered:
    """What the reviewer sent, when the page comes back to them: a refusal's message (and the
    field or type it concerns), the reason, comment and values they typed (kept), and the
    decision they are asked to confirm."""

    error: str = ""
    chosen_reason: str = ""
    comment: str = ""
    fields: dict[str, str] | None = None
    tables: dict[str, tuple[TypedRow, ...]] | None = None
    field_errors: dict[str, str] | None = None
    type_error: str = ""
    doc_type_picked: str = ""
    add_supplier: bool = False
    confirm: str = ""
