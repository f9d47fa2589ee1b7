"""Packets: page-level classification of a file that holds several documents back to back.

`signals` reads what a page says about its place (a title, a page counter, a document number,
an issuer's id, a total line, the layout); `engine` is the interface (a type and a "starts a
document" score per page, with reason codes); `rules_engine` weighs the signals,
`bedrock_engine` asks a model through Converse; `plan` turns the scores into parts by the rules
file's `[packets]` thresholds, with the unsure boundaries a person decides; `factory` picks the
engine. Pure but for the Bedrock call: no S3, no checkpoint, no step (those are the pipeline's,
`docflow.pipeline.packet`).

May import the ground floor, `rules` (the `[packets]` table, the types), `extract` (labels,
layout), `readers` (words, the throttle policy) and `suppliers` (checked tax ids and IBANs);
never the pipeline, the review desk, the read model or the local stack.
"""

from docflow.packets.engine import EngineAnswer, PacketPage, PageCall, PageEngine
from docflow.packets.plan import Part, Proposal, parts_from_starts, propose

__all__ = [
    "EngineAnswer",
    "PacketPage",
    "PageCall",
    "PageEngine",
    "Part",
    "Proposal",
    "parts_from_starts",
    "propose",
]
