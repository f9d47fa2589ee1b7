"""Does `docflow audit`'s interval hold the true share of wrong profile values?

    python bench/audit.py            200 seeded streams of 2,000 invoices per true share
    python bench/audit.py --smoke    20 streams of 400

Each stream is one supplier's invoices after its profile fields became trusted, read on
the profile with no other reason for a person. Each of a document's profile values is wrong
with a known probability (the true share, independently). Every document goes through the
real audit sampler and ledger (`docflow.suppliers.audit.with_sample`, the shipped `[audit]`
rate, 5%, drawn by `docflow.suppliers.audit_key.sampled` under a seeded key of a fresh random
content tag and version); an audited document's wrong values are what its auditor
corrects (`with_outcome`); the stream's estimate is `summarize`, the one `docflow audit`
prints (statsmodels' Wilson interval at 95%). Measured per true share over the streams:

    coverage            share of streams whose interval holds the true share (target about
                        0.95, at least 0.93)
    coverage_realized   share whose interval holds the share actually wrong among that
                        stream's unreviewed values
    mean_width          mean interval width
    audited_share       documents sent to the audit stage / documents read on the profile:
                        the review rate the audit adds
    mean_values_audited mean profile values audited per stream

The last line of stdout is one JSON object: {"streams", "documents", "fields_per_document",
"rate", "shares": {true share: {...}}, "min_coverage", "ok", "seconds"}.
"""

from __future__ import annotations

import argparse
import random
import time
import uuid
from typing import Any

import _common

from docflow.suppliers.audit import summarize, with_outcome, with_sample
from docflow.suppliers.audit_key import hkdf_sha256, sampled
from docflow.suppliers.shapes import AuditOutcome, Ledger

FIELDS = ("invoice_number", "invoice_date", "po_number")
SHARES = (0.005, 0.02, 0.05)
RATE = 0.05  # the shipped rules' [audit] rate


def stream(rng: random.Random, documents: int, share: float) -> dict[str, Any]:
    """One supplier's stream through the sampler and the ledger; its estimate and truth."""
    ledger = Ledger()  # every count starts absent: `_counts` reads them as 0
    key = hkdf_sha256(rng.randbytes(32), b"bench audit")
    wrong_unreviewed = 0
    for n in range(documents):
        document_id = f"d-{uuid.UUID(int=rng.getrandbits(128)).hex}"
        content, version = uuid.UUID(int=rng.getrandbits(128)).hex, f"v-{n}"
        run_id = f"r-{n}"
        wrong = [f for f in FIELDS if rng.random() < share]
        chosen = sampled(key, content, version, RATE)
        new, why = with_sample(ledger, run_id, FIELDS, chosen)
        assert new is not None
        ledger = new
        if why:  # the auditor corrects every wrong value: each a miss
            outcome = AuditOutcome(documentId=document_id, fields=list(FIELDS), misses=wrong)
            ledger = with_outcome(ledger, run_id, outcome) or ledger
        else:
            wrong_unreviewed += len(wrong)
        # The ledger keeps its last run ids only; the bench's memory need not grow.
        ledger["runs"], ledger["outcomes"], ledger["audits"] = ledger["runs"][-2:], [], []
    found = summarize(ledger)
    realized = wrong_unreviewed / max(1, found["unreviewedValues"])
    return {**found, "realized": realized}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="20 streams of 400 invoices")
    parser.add_argument("--streams", type=int, default=200, help="seeded streams per share")
    parser.add_argument("--documents", type=int, default=2000, help="invoices per stream")
    args = parser.parse_args()
    _common.quiet()
    streams, documents = (20, 400) if args.smoke else (args.streams, args.documents)
    started = time.monotonic()
    shares: dict[str, Any] = {}
    for share in SHARES:
        held = held_realized = 0
        widths, audited, values = [], [], []
        for seed in range(streams):
            found = stream(random.Random(f"{share}-{seed}"), documents, share)
            est = found["sampled"]["wrongShare"]
            if est is None:
                continue
            held += est["low"] <= share <= est["high"]
            held_realized += est["low"] <= found["realized"] <= est["high"]
            widths.append(est["high"] - est["low"])
            audited.append(found["sampled"]["documents"] / documents)
            values.append(found["sampled"]["values"])
        n = len(widths)
        shares[str(share)] = {
            "coverage": round(held / n, 4),
            "coverage_realized": round(held_realized / n, 4),
            "mean_width": round(sum(widths) / n, 4),
            "audited_share": round(sum(audited) / n, 4),
            "mean_values_audited": round(sum(values) / n, 1),
        }
    least = min(s["coverage"] for s in shares.values())
    _common.emit(
        {
            "streams": streams,
            "documents": documents,
            "fields_per_document": len(FIELDS),
            "rate": RATE,
            "shares": shares,
            "min_coverage": least,
            # A smoke run's 20 streams say little about coverage: it checks the run, not 0.93.
            "ok": least >= (0.8 if args.smoke else 0.93),
            "seconds": round(time.monotonic() - started, 1),
        }
    )


if __name__ == "__main__":
    main()
