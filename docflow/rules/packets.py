"""The rules file's `[packets]` table: which uploads are read as packets (a file holding several
documents back to back), the two thresholds that turn a page's "starts a document" score into
a boundary, a boundary to ask a person about, or no boundary, and the review stage that asks.

    [packets]
    prefixes = ["incoming/packets/"]   # keys under these are packets ...
    all = false                        # ... or every upload is (a single document is a
                                       #     packet of one part and goes on as itself)
    start_above = 0.8                  # a page scoring at least this starts a document
    unsure_above = 0.35                # from this up to start_above: the split stage decides
    stage = "split"                    # the stage that decides; none: the proposal stands
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# A packet may hold a few pages PDFium refuses (each fails its part); more is a broken file.
MAX_REFUSED_PAGES = 50
# A packet's plan and parts are checkpointed at about 20 bytes a part: 5,000 parts stay far
# under a step result's 256 KB. (Ordinary documents may be longer: DOCFLOW_MAX_PAGES.)
MAX_PACKET_PAGES = 5_000


@dataclass(frozen=True)
class PacketRules:
    prefixes: tuple[str, ...] = ()
    every_file: bool = False
    start_above: float = 0.8
    unsure_above: float = 0.35
    stage: str | None = None

    @property
    def enabled(self) -> bool:
        return self.every_file or bool(self.prefixes)

    def is_packet(self, key: str) -> bool:
        """Whether the upload at `key` (in the document bucket) is read as a packet."""
        return self.every_file or any(key.startswith(p) for p in self.prefixes)

    def verdict(self, score: float) -> str:
        """`start`, `unsure` or `continue` for a page's score."""
        if score >= self.start_above:
            return "start"
        if score >= self.unsure_above:
            return "unsure"
        return "continue"

    @property
    def proposal_above(self) -> float:
        """Where an unsure page is proposed as a start: the middle of the unsure band."""
        return (self.unsure_above + self.start_above) / 2


NO_PACKETS = PacketRules()


def parse_packet_rules(raw: Mapping[str, Any] | None) -> PacketRules:
    """The `[packets]` table; raises ValueError naming what is wrong."""
    if not raw:
        return NO_PACKETS
    known = {"prefixes", "all", "start_above", "unsure_above", "stage"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"packets: unknown keys {unknown}")
    prefixes = tuple(str(p) for p in raw.get("prefixes", []))
    if any(not p for p in prefixes):
        raise ValueError("packets.prefixes: an empty prefix would make every file a packet")
    start, unsure = float(raw.get("start_above", 0.8)), float(raw.get("unsure_above", 0.35))
    if not 0.0 < unsure <= start < 1.0:
        raise ValueError("packets: need 0 < unsure_above <= start_above < 1")
    stage = raw.get("stage")
    return PacketRules(
        prefixes=prefixes,
        every_file=bool(raw.get("all", False)),
        start_above=start,
        unsure_above=unsure,
        stage=str(stage) if stage else None,
    )
