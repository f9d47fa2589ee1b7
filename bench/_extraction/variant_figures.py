"""The `variants` section: warm learning measured on layouts no rule was written for.

Each born-digital real invoice gives `N` variants of its own layout with new values
(`variants.py`), and a stream of their scans where the set has a scan of it. Each stream is
one supplier's five documents, replayed in order against a registry that fills (`warm.py`,
under `[suppliers] min_confirmations = 2`): the first two reviewed with their truth as the
corrections (taught through the pipeline's learn step), the other three measured. Beside
it, the same documents cold (empty registry, the shipped calibration) and cold
leave-one-issuer-out (a fit without the issuer's documents of any set).

    originals          born-digital originals tried; with_variants: those that gave any
    skipped            {original: why no variant was made}
    dropped            {variant: why it failed its text check}
    documents          variants measured in all (text pages and scans)
    warm               the replay's figures (`warm.py`) on the measured three of each
                       stream, with `warm_straight_through` (its `straight_through`),
                       by_language and by_field (`scoring.score` of the measured), `held`
                       ({reason: documents}, `held.py`: what held each measured document),
                       `profile_reads` ({reads, right}: every layout read the replay made,
                       what `--fit-profile` fits on) and `straight_through_profile_held_out`
                       (`profile_fit.held_out`: the profile table fitted without the issuer)
    warm_names         the same with every supplier in the registry by its name, so one whose
                       pages print no checked id learns too (`warm.py`'s `by_name`)
    cold               the same measured documents cold: straight_through, review_rate,
                       silent_wrong, silent_missing, by_language, by_field
    cross_validated    the same, each issuer's calibration fitted without it
    generate_seconds, seconds
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _extraction.generated import Document
from _extraction.profile_fit import held_out
from _extraction.reads import ReadCache
from _extraction.scoring import score
from _extraction.step import run_document
from _extraction.variants import VariantSet
from _extraction.warm import warm_by_confirmations
from docflow.extract.rules_engine.calibration import thresholds

REVIEWED = 2  # each stream's first two are reviewed, the rest measured
MIN_CONFIRMATIONS = 2
KEYS = ("straight_through", "review_rate", "fields_review_rate", "silent_wrong", "silent_missing")


def stream_of(doc: Document) -> str:
    """A variant's stream: its original, text pages or scans (`x~v3` and `x~v3_scan`)."""
    original, _, rest = doc.ident.partition("~")
    return f"{original}{'_scan' if rest.endswith('_scan') else ''}"


def measured(docs: list[Document]) -> list[bool]:
    """Which documents the replay measures (all but each stream's first `REVIEWED`)."""
    counts: dict[str, int] = {}
    out = []
    for doc in docs:
        key = stream_of(doc)
        counts[key] = counts.get(key, 0) + 1
        out.append(counts[key] > REVIEWED)
    return out


def _figures(docs: list[Document], results: list[dict[str, Any]]) -> dict[str, Any]:
    scored = score(docs, results)
    scored.pop("_misses")
    scored.pop("_pairs")
    return {
        "documents": scored["documents"],
        **{k: scored[k] for k in KEYS},
        "exact_match": scored["exact_match"],
        "by_language": scored["by_language"],
        "by_field": scored["by_field"],
    }


def cold_runs(
    docs: list[Document], bucket: str, workers: int, reads: ReadCache
) -> list[dict[str, Any]]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(
            pool.map(lambda d: run_document(d, bucket, reads, prefix="bench-variants")[2], docs)
        )


def section(
    found: VariantSet,
    bucket: str,
    workers: int,
    cold: list[dict[str, Any]],
    reads: ReadCache,
    generate_seconds: float,
    started: float,
) -> dict[str, Any]:
    """The section's JSON (see the module's docstring) but its `cross_validated`
    (`with_cross_validated`); `cold`: the cold run of `found.documents`, `reads`: the cold
    run's page reads, which the replay reuses (the same bytes read twice in one run)."""
    docs = found.documents
    both = warm_by_confirmations(
        docs,
        bucket,
        cold,
        reads,
        counts=(MIN_CONFIRMATIONS,),
        by_name=(MIN_CONFIRMATIONS,),
        reviewed=REVIEWED,
        stream=stream_of,
    )
    warmed = both[str(MIN_CONFIRMATIONS)]
    details = warmed.pop("_details")
    pairs = warmed.pop("_results")
    fit_reads = warmed.pop("_reads")
    warm_scored = _figures([d for d, _r in pairs], [r for _d, r in pairs])
    # Every supplier in the registry by its name (warm.py's `by_name`): issue 47's learning
    # for suppliers that print no checked id.
    named = both[f"{MIN_CONFIRMATIONS}+names"]
    named_details = named.pop("_details")
    named_pairs = named.pop("_results")
    named.pop("_reads")
    named_scored = _figures([d for d, _r in named_pairs], [r for _d, r in named_pairs])
    keep = measured(docs)
    chosen = [d for d, k in zip(docs, keep, strict=True) if k]
    out: dict[str, Any] = {
        "originals": found.originals,
        "with_variants": len({stream_of(d).removesuffix("_scan") for d in docs}),
        "skipped": found.skipped,
        "dropped": found.dropped,
        "documents": len(docs),
        "streams": len({stream_of(d) for d in docs}),
        "min_confirmations": MIN_CONFIRMATIONS,
        "warm": {
            "warm_straight_through": warmed["straight_through"],
            **warmed,
            "by_language": warm_scored["by_language"],
            "by_field": warm_scored["by_field"],
        },
        "warm_names": {
            "warm_straight_through": named["straight_through"],
            **named,
            "by_language": named_scored["by_language"],
            "by_field": named_scored["by_field"],
        },
        "cold": _figures(chosen, [r for r, k in zip(cold, keep, strict=True) if k]),
        "cross_validated": None,
        "generate_seconds": round(generate_seconds, 1),
    }
    cold_of = {d.ident: r for d, r in zip(docs, cold, strict=True)}
    through = [bool(d["straight_through"]) for d in details]
    held = [(d, r, t, cold_of[d.ident]) for (d, r), t in zip(pairs, through, strict=True)]
    out["warm"]["straight_through_profile_held_out"] = held_out(
        fit_reads, held, lambda d: stream_of(d).removesuffix("_scan"), thresholds()
    )
    out["warm"]["profile_reads"] = {
        "reads": len(fit_reads),
        "right": sum(1 for r in fit_reads if r["right"]),
    }
    out["seconds"] = round(time.monotonic() - started, 1)
    out["_details"] = [*details, *({**d, "names": True} for d in named_details)]
    out["_reads"] = fit_reads
    return out


def with_cross_validated(
    out: dict[str, Any], docs: list[Document], validated: list[dict[str, Any]]
) -> None:
    """`validated`: each of `docs`' result under a fit without its issuer."""
    keep = measured(docs)
    chosen = [d for d, k in zip(docs, keep, strict=True) if k]
    out["cross_validated"] = _figures(
        chosen, [r for r, k in zip(validated, keep, strict=True) if k]
    )


def reads_folder() -> tempfile.TemporaryDirectory[str]:
    """Where the cold run keeps the variants' page reads for the replay (gone after the run:
    never a cache between runs, unlike `--reads`)."""
    return tempfile.TemporaryDirectory(prefix="bench-variant-reads-")


def read_cache(folder: str) -> ReadCache:
    return ReadCache(Path(folder))
