"""What the desk hands back for a link it checked: the token's claims, the stored link, and
(for the review page) the stage's deadline, record and presence. Beside the desk so that the
form checks, the desk and the pages all read the same type."""

from __future__ import annotations

from dataclasses import dataclass

from docflow.ids import DocumentRef
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.signing import TokenClaims
from docflow.review.stage.stage_record import Presence, StageRecord


@dataclass(frozen=True)
class LinkView:
    claims: TokenClaims
    link: LinkRecord
    deadline: int | None = None  # when the stage times out
    stage: StageRecord | None = None  # the stage record: reviewers, quorum, votes so far
    presence: Presence | None = None  # who is looking at the document now (maybe us)

    @property
    def doc(self) -> DocumentRef:
        """The document version the link is bound to (its S3 object and artifacts)."""
        return self.link.doc
