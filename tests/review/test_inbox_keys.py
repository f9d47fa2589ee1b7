"""The inbox page's `j`/`k` links across page boundaries: the cursors only go forward, so a
page carries the earlier pages' cursors (`back`) and `k` on its first item goes to the previous
page's last. The page as rendered, no AWS."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

from docflow.review.web.inbox_page import InboxRow, inbox_page


def rows(n: int) -> list[InboxRow]:
    return [
        InboxRow(f"/review/t{i}", f"doc-{i}.pdf", "contract", "legal", "why", "", "", False, "")
        for i in range(n)
    ]


def key_link(page_html: str, key: str) -> dict[str, str]:
    found = re.search(rf'<a href="([^"]*)" accesskey="{key}">', page_html)
    assert found, f"no {key} link"
    query = parse_qs(urlsplit(html.unescape(found[1])).query)
    return {k: v[0] for k, v in query.items()}


def page(at: int, cursor: str, next_page: str, back: str) -> str:
    return inbox_page(
        reviewer="legal@example.com",
        base="/inbox/T",
        rows=rows(3),
        at=at,
        stage="",
        doc_type="",
        page=cursor,
        next_page=next_page,
        back=back,
    )


def test_j_and_k_walk_across_pages_both_ways() -> None:
    # Page one, last item: j opens page two and remembers page one (`~`, the empty cursor).
    onward = key_link(page(2, "", "P2", ""), "j")
    assert onward == {"page": "P2", "at": "0", "back": "~"}
    # Page two, first item: k goes back to page one's last item, with nothing before it.
    assert key_link(page(0, "P2", "P3", "~"), "k") == {"at": "999"}
    # Page three, first item: back to page two, still knowing page one.
    assert key_link(page(0, "P3", "", "~.P2"), "k") == {"page": "P2", "at": "999", "back": "~"}
    # Within a page the walk keeps what it knows.
    assert key_link(page(1, "P3", "", "~.P2"), "k") == {"page": "P3", "at": "0", "back": "~.P2"}


def test_the_first_page_has_no_k_on_its_first_item() -> None:
    assert 'accesskey="k"' not in page(0, "", "P2", "")
