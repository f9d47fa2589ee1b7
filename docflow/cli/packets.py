"""Packets in the `docflow` command: a packet's parts under it in `run` (one row each,
indented), its parts in `show`, a part's packet and pages in `show` (docs/packets.md).

A packet's run ends when its split is settled; its parts then run on their own, so `run` waits
for the parts as well, reading them from the packet's partition of the read model (one Query
per packet: the recorder mirrors each part's status there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docflow.cli.output import SETTLED
from docflow.readmodel.items import ChildItem, DocumentState

if TYPE_CHECKING:
    from docflow.cli.shapes import Submitted

PACKET = "packet"
# Where `docflow run --packets` uploads: the shipped rules' packet prefix.
PACKET_PREFIX = "incoming/packets/"


def is_packet(state: DocumentState) -> bool:
    return state.get("docType") == PACKET and bool(state.get("parts"))


def pages_label(pages: Any) -> str:
    first, last = [*pages, 0, 0][:2] if isinstance(pages, list) else (0, 0)
    return f"page {first}" if first == last else f"pages {first}-{last}"


def parts_settled(state: DocumentState, children: list[ChildItem]) -> bool:
    """Every part of a settled packet has reported, and each has settled."""
    if not is_packet(state):
        return True
    return len(children) >= int(state.get("parts") or 0) and all(
        c.get("status") in SETTLED for c in children
    )


def child_submitted(parent: Submitted, child: ChildItem) -> Submitted:
    """A part as `run` tracks a submitted document (its key is the part's PDF)."""
    return {
        "documentId": child["documentId"],
        "version": "null",
        "runId": str(child.get("runId") or ""),
        "path": parent["path"],
        "key": child.get("key", ""),
        "bucket": "",
        "parentPages": child.get("parentPages"),
        "packetKey": parent.get("key", ""),
    }


def show_lines(state: DocumentState, parent: DocumentState | None) -> list[str]:
    """`show` of a part: which packet it came from, and its pages there."""
    if not state.get("parentId"):
        return []
    name = str((parent or {}).get("key") or "").rsplit("/", 1)[-1]
    named = f" ({name})" if name else ""
    return [f"{'packet':11} {state['parentId']}{named}, {pages_label(state.get('parentPages'))}"]


def children_table(children: list[ChildItem]) -> list[list[str]]:
    """`show` of a packet: its parts, one row each."""
    return [
        [
            pages_label(c.get("parentPages")),
            str(c.get("documentId", "")),
            str(c.get("docType") or "-"),
            str(c.get("status", "")),
            str(c.get("stageName") or c.get("reason") or ""),
        ]
        for c in children
    ]
