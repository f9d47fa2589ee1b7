"""The profile table (`docflow/suppliers/profile_calibration.json`): each layout read's cells
counted right and in all, over the variants' warm replay (`--fit-profile`), and the check of
it held out by issuer.

Every read a replay made (a shadow read or a value given, on a reviewed or a measured
document) counts once in each of its cells (`profile_confidence.cell_keys`, most specific to
coarsest), right when the truth agrees. The table names the set it was fitted on.

`held_out` is the honest figure for a table fitted on the very reads it is measured on: a
measured document that went straight through stays so only if every value its layout gave
still clears its field's threshold under the table fitted without its own issuer's reads.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from docflow.suppliers import profile_confidence

METHOD = (
    "per cell, reads right and in all; the confidence is the posterior mean under a Beta(1, 1) "
    "prior, from the most specific cell with at least min_cell reads (a repaired read only "
    "from repaired cells, but for a repaired amount, given only where net + tax = total, the "
    "amounts' own cells after them)"
)


def counts(reads: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    cells: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for read in reads:
        for key in read["cells"]:
            cells[key][0] += 1 if read["right"] else 0
            cells[key][1] += 1
    return dict(sorted(cells.items()))


def fitted(reads: Sequence[Mapping[str, Any]], fitted_on: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "fitted_on": {**fitted_on, "reads": len(reads), "at": datetime.now(UTC).date().isoformat()},
        "method": METHOD,
        "min_cell": profile_confidence.MIN_CELL,
        "cells": counts(reads),
    }


def write(table: Mapping[str, Any]) -> None:
    profile_confidence.TABLE.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    profile_confidence.load_table.cache_clear()


def held_out(
    reads: Sequence[Mapping[str, Any]],
    measured: Sequence[tuple[Any, Mapping[str, Any], bool, Mapping[str, Any]]],
    issuer: Callable[[Any], str],
    thresholds: Mapping[str, float],
) -> float | None:
    """The measured documents' straight-through share with each issuer's table fitted
    without its reads (the module's docstring); `measured`: (document, warm result,
    straight through, cold result) each, the cold result's confidences the rules' own."""
    if not measured:
        return None
    kept = 0
    tables: dict[str, dict[str, Any]] = {}
    for doc, result, through, cold in measured:
        if not through:
            continue
        own = issuer(doc)
        if own not in tables:
            tables[own] = {"cells": counts([r for r in reads if r["issuer"] != own])}
        cells = result.get("profileReads") or {}
        sure = True
        for name in result.get("profileFields") or []:
            if name not in cells:
                continue
            p = profile_confidence.probability(cells[name]["cells"], tables[own])
            if cells[name].get("agreed"):
                p = max(p, float((cold["fields"].get(name) or {}).get("confidence") or 0.0))
            sure = sure and p >= thresholds.get(name, 0.0)
        kept += 1 if sure else 0
    return round(kept / len(measured), 4)
