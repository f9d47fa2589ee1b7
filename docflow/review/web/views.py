"""What the callback API shows under a token: the review page, previews, the download.

Each entry point first asks the desk whether the link may be shown (`open`, which also sends
the heartbeat) or may still see the document (`access`); only then does it read S3.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TypedDict

from docflow import aws
from docflow.document import DocumentSummary
from docflow.extract.declarations.model import TypeDecl
from docflow.reporting import build_reporter
from docflow.review.access.keys import build_key_source
from docflow.review.access.links import LinkStore
from docflow.review.access.refusals import ReviewRefused, reasons_for
from docflow.review.decision_form import DecisionForm, FieldProblem
from docflow.review.desk import ReviewDesk
from docflow.review.link_view import LinkView
from docflow.review.stage.callbacks import LambdaCallbackSender
from docflow.review.stage.for_review import ForReview
from docflow.review.web.einvoice_view import InvoiceView, einvoice_of, invoice_view, xml_only
from docflow.review.web.evidence import EvidenceStore, masked_cut, review_order
from docflow.review.web.inbox_views import InboxChoices, InboxViews
from docflow.review.web.match_view import MATCH_BECAUSE, MatchView, match_view
from docflow.review.web.page_records import Answered, Routing, Shown
from docflow.review.web.pages import DOWNLOAD_MINUTES, PAGE_WINDOW, review_page
from docflow.review.web.previews import PREVIEW_WIDTH, THUMB_WIDTH, PreviewStore
from docflow.review.web.split_page import split_page
from docflow.rules.model import load_rules
from docflow.settings import Settings
from docflow.storage import DocumentStore


class _GetObject(TypedDict, total=False):
    """A presigned GetObject's parameters: the original, named, never cached."""

    Bucket: str
    Key: str
    VersionId: str
    ResponseContentDisposition: str
    ResponseContentType: str
    ResponseCacheControl: str


@dataclass(frozen=True)
class ReviewScreen:
    view: LinkView
    html: str
    order: list[int]


class ReviewViews:
    def __init__(
        self,
        desk: ReviewDesk,
        evidence: EvidenceStore,
        previews: PreviewStore,
        routing: Routing,
        inbox: InboxViews | None = None,
        types: Mapping[str, TypeDecl] | None = None,
    ) -> None:
        self.desk, self.evidence, self.previews, self.routing = desk, evidence, previews, routing
        self.inbox = inbox or InboxViews(desk.keys, desk.links.table)
        # The fields each type declares (the rules file's): the page's inputs, the form's checks.
        self.types: Mapping[str, TypeDecl] = types or {}

    @classmethod
    def from_settings(cls, s: Settings) -> ReviewViews:
        rules = load_rules(s.rules_path or None, s.stage_timeout_s)
        links = LinkStore(s.links_table)
        desk = ReviewDesk(
            build_key_source(s),
            links,
            LambdaCallbackSender(),
            build_reporter(s),
            presence_s=s.review_claim_s,
        )
        types = (*(t.name for t in rules.types), *(["unknown"] if rules.triage_stage else []))
        choices = InboxChoices(stages=tuple(sorted(rules.stages)), types=tuple(types))
        return cls(
            desk,
            EvidenceStore(s.artifact_bucket),
            PreviewStore(DocumentStore(s.artifact_bucket), s.max_bytes),
            Routing(rules.review_on, rules.min_confidence),
            InboxViews(desk.keys, links.table, choices=choices),
            rules.fields.types,
        )

    def review(
        self,
        token: str,
        offset: int,
        inbox: str = "",
        confirm: str = "",
        look: bool = False,
        form: DecisionForm | None = None,
        problem: FieldProblem | None = None,
    ) -> ReviewScreen:
        """The review page; with a `problem`, the reviewer's `form` again with the message
        beside its field, from the view the desk checked (the link is not checked twice)."""
        view = problem.view if problem and problem.view else self.desk.open(token, look)
        form = form or DecisionForm()
        field = problem.field if problem else ""
        error = str(problem) if problem else ""
        starts = list(problem.starts) if problem and field == "start" else None
        # The way back to the inbox only for this reviewer's own inbox link.
        if inbox and not self.inbox.same_reviewer(inbox, view.claims.reviewer):
            inbox = ""
        doc = view.doc
        shown_doc = view.link.shown
        split = shown_doc.split
        if split:  # a packet's split stage: its pages as thumbnails and the boundaries
            html = split_page(
                link=view.link,
                base=f"/review/{token}",
                calls=self.evidence.plan_calls(str(split.get("planKey") or "")),
                deadline=view.deadline,
                starts=starts,
                error=error if field == "start" else "",
                presence=view.presence,
                reasons=reasons_for(view.link),
                chosen_reason=form.reason,
                comment=form.comment,
                reject_error=error if field != "start" else "",
                inbox=inbox,
            )
            return ReviewScreen(view, html, list(range(1, int(split["pages"]) + 1)))
        invoice = self._invoice(shown_doc.summary)
        match = self._match(shown_doc, view.link.stage_index)
        pages = self.evidence.pages(doc)
        order, flagged = review_order(pages, self.routing.min_confidence, self.routing.review_on)
        if xml_only(shown_doc.summary):
            # No page to picture: the invoice is shown instead (what the detectors found in
            # its reading is still said).
            order, flagged = [], 0
        offset = min(offset, max(0, len(order) - 1))
        window = order[offset : offset + PAGE_WINDOW]
        with ThreadPoolExecutor(max_workers=len(window) or 1) as pool:
            read = pool.map(lambda n: self.evidence.text(doc, n), window)
            texts = dict(zip(window, read, strict=True))
        shown = Shown(
            link=view.link,
            base=f"/review/{token}",
            pages=pages,
            order=order,
            shown_from=offset,
            texts={n: masked_cut(t) for n, t in texts.items()},
            routing=self.routing,
            deadline=view.deadline,
            flagged=flagged,
            reasons=reasons_for(view.link),
            stage=view.stage,
            decl=self.types.get(shown_doc.summary.doc_type),
            invoice=invoice,
            presence=view.presence,
            inbox=inbox,
            match=match,
        )
        answered = Answered(
            error=error,
            chosen_reason=form.reason,
            comment=form.comment,
            fields=form.fields,
            tables=form.tables if problem else None,
            field_errors=problem.errors if problem else None,
            type_error=error if field == "docType" else "",
            doc_type_picked=form.doc_type,
            add_supplier=form.add_supplier,
            confirm=confirm,
        )
        html = review_page(shown, answered)
        return ReviewScreen(view, html, order)

    def _invoice(self, summary: DocumentSummary) -> InvoiceView | None:
        """An e-invoice's data as the page shows it, read from its einvoice.json."""
        about = einvoice_of(summary)
        if not about:
            return None
        return invoice_view(summary, self.evidence.einvoice(str(about.get("key") or "")))

    def _match(self, shown: ForReview, index: int) -> MatchView | None:
        """At the match stage, the invoice's match as the page shows it (its match.json)."""
        match = shown.summary.more.get("match")
        if not isinstance(match, dict) or shown.because(index) != MATCH_BECAUSE:
            return None
        # match.json read as einvoice.json is: a stored JSON object, or None if it is not one.
        return match_view(match, self.evidence.einvoice(str(match.get("key") or "")))

    def preview(self, token: str, number: str, size: str = "") -> tuple[bytes, bool]:
        """Page `number`'s preview; `size` "thumb": the split page's thumbnail."""
        view = self.desk.access(token)
        if xml_only(view.link.shown.summary):
            raise ReviewRefused(404, "no-preview", "an invoice sent as XML has no page to show")
        page = int(number) if number.isdigit() and len(number) < 7 else 0
        pages = view.link.shown.summary.pages or 0
        if not 1 <= page <= pages:
            raise ReviewRefused(404, "no-such-page", "this document has no such page")

        def found_something() -> bool:
            facts = {p.page: p for p in self.evidence.pages(view.doc)}.get(page)
            return facts is not None and any(facts.sensitive.values())

        width = THUMB_WIDTH if size == "thumb" else PREVIEW_WIDTH
        return self.previews.get(view.doc, page, found_something, width)

    def download_url(self, token: str) -> str:
        """A presigned download of the original, made at the click, after the download is
        in the document's history (who, which stage, which object; no token): a download
        that cannot be recorded does not happen."""
        view = self.desk.access(token)
        doc = view.doc
        self.desk.record_download(view)
        name = PurePosixPath(doc.key).name.replace('"', "")
        xml = xml_only(view.link.shown.summary)
        if xml:  # recognized by its content, whatever the upload was called
            name = f"{PurePosixPath(name).stem or 'invoice'}.xml"
        params: _GetObject = {
            "Bucket": doc.bucket,
            "Key": doc.key,
            "ResponseContentDisposition": f'attachment; filename="{name or "document.pdf"}"',
            "ResponseContentType": "application/xml" if xml else "application/pdf",
            # Nor a browser nor a proxy keeps the original: each download is a recorded click.
            "ResponseCacheControl": "no-store",
        }
        if doc.version != "null":
            params["VersionId"] = doc.version
        return str(
            aws.client("s3").generate_presigned_url(
                "get_object", Params=params, ExpiresIn=DOWNLOAD_MINUTES * 60
            )
        )
