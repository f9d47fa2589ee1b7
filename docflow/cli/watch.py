"""`docflow run`'s wait: poll the read model until every document settles, printing progress;
a packet settles when its split is settled and each of its parts has (docs/packets.md)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from docflow.cli.output import SETTLED, Progress, bar
from docflow.cli.packets import is_packet, pages_label, parts_settled
from docflow.cli.shapes import Submitted
from docflow.readmodel.items import ChildItem, DocumentState
from docflow.readmodel.transitions import READING

if TYPE_CHECKING:
    from docflow.readmodel.queries import ReadModel

# How often `run` asks S3 how many pages a document being read has (a list of its pages).
PAGES_EVERY_S = 2.0


def pages_read(prefix: str) -> int:
    """Pages of a run read so far: its page texts in S3 (`NNNNN.txt`; the words files beside
    them are not pages)."""
    from docflow import aws
    from docflow.settings import load_settings

    pages = (
        aws.client("s3")
        .get_paginator("list_objects_v2")
        .paginate(Bucket=load_settings().artifact_bucket, Prefix=f"{prefix}/pages/")
    )
    return sum(
        1 for page in pages for item in page.get("Contents", []) if item["Key"].endswith(".txt")
    )


class Watch:
    """The documents `run` submitted, their states as last read, and a packet's parts."""

    def __init__(
        self, read_model: ReadModel, submitted: list[Submitted], prefix: str, progress: Progress
    ) -> None:
        self.model, self.submitted, self.prefix, self.progress = (
            read_model,
            submitted,
            prefix,
            progress,
        )
        self.states: dict[str, DocumentState] = {}
        self.children: dict[str, list[ChildItem]] = {}  # a packet's parts, as they report
        self.pages: dict[str, int] = {}
        self.counted_at: dict[str, float] = {}

    def poll(self) -> bool:
        """Read what changed, print the progress; True when everything has settled."""
        # Only the documents not yet settled, a hundred to a request: the polling must not
        # load the stack that is doing the work.
        waiting = [s for s in self.submitted if self._status(s) not in SETTLED]
        now = self.model.states(s["documentId"] for s in waiting)
        for s in waiting:
            state = now.get(s["documentId"]) or DocumentState()
            if state.get("runId") == s["runId"]:
                self.states[s["documentId"]] = state
        for s in self.submitted:  # a settled packet's parts run on: wait for them too
            state = self.states.get(s["documentId"], DocumentState())
            parts = self.children.get(s["documentId"], [])
            if self._status(s) in SETTLED and is_packet(state) and not parts_settled(state, parts):
                self.children[s["documentId"]] = self.model.children(s["documentId"])
        settled = sum(self._settled(s) for s in self.submitted)
        self.progress.update(self._lines(), settled, len(self.submitted))
        return settled == len(self.submitted)

    def _status(self, submitted: Submitted) -> str:
        return str(
            self.states.get(submitted["documentId"], DocumentState()).get("status", "queued")
        )

    def _settled(self, submitted: Submitted) -> bool:
        state = self.states.get(submitted["documentId"], DocumentState())
        parts = self.children.get(submitted["documentId"], [])
        return self._status(submitted) in SETTLED and parts_settled(state, parts)

    def _lines(self) -> list[tuple[str, str, str]]:
        lines = []
        for s in self.submitted:
            state = self.states.get(s["documentId"], {})
            status = self._status(s)
            # Pages are counted (a list in S3) only while the document is being read, and
            # not on every poll: once read, its page count is the state's.
            clock = time.monotonic()
            if status == READING and clock - self.counted_at.get(s["runId"], 0) >= PAGES_EVERY_S:
                self.pages[s["runId"]] = pages_read(s["prefix"])
                self.counted_at[s["runId"]] = clock
            total = state.get("pages")
            done = total if status not in (READING, "queued", "received") else None
            done = done if done is not None else self.pages.get(s["runId"], 0)
            if self.progress.tty:
                shown = bar(done, total)
            else:
                shown = f"{done}/{total} pages" if status == READING and total else ""
            lines.append((s["key"].removeprefix(self.prefix), shown, status))
            for part in self.children.get(s["documentId"], []):
                name = f"  {pages_label(part.get('parentPages'))}"
                lines.append((name, "", str(part.get("status", ""))))
        return lines
