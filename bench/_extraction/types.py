"""The document types beyond invoices, measured on real public documents: receipts, bank
statements, contracts and a claim form in `tests/data/real_documents/<type>/`, each with its
hand-written `<name>.truth.json` (that folder's README says where each came from).

Each document goes through the same step bodies as the real invoice set (`step.py`: split,
read, classify, extract, the stages the orchestrator would give it) and is scored against the
fields its type declares in the rules file:

    documents             documents of the type
    classified            share classified as their type
    straight_through      share with no review stage of any kind and every printed field
                          (and every table's rows) read exactly
    silent_wrong          values (a table: its rows) read and different from the truth in
                          documents no person checks the fields of (target 0)
    fields {name: {printed, read, exact}}     printed: truth not null; read: a value given;
                          exact: the printed ones read exactly (folded for text and parties)
    tables {name: {rows_truth, rows_read, rows_exact}}   rows_exact: truth rows a read row
                          equals, each read row matched once
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from _extraction.generated import Document
from _extraction.real import real_documents
from _extraction.scoring import REVIEWS

DOCUMENTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "real_documents"
# Kinds compared after folding case, accents, punctuation and spacing: a name or a clause is
# printed in more than one case on one document (`GFD PLATFORM SYSTEMS`, `Gfd Platform`).
FOLDED = {"text", "party", "address"}


def type_documents(root: Path = DOCUMENTS) -> list[Document]:
    """The set's documents, read as the real invoice set's are; a table's truth is its rows,
    under `fields` beside the scalars (None: not printed)."""
    return real_documents(root)


def fold(value: str) -> str:
    text = unicodedata.normalize("NFKD", value)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]", "", text)


def same_value(kind: str, got: str | None, truth: str | None) -> bool:
    if got is None or truth is None:
        return got is None and truth is None
    return fold(got) == fold(truth) if kind in FOLDED else got == truth


def rows_exact(truth: Sequence[Mapping[str, str]], read: Sequence[Mapping[str, str]]) -> int:
    """Truth rows some read row equals cell for cell (blank cells left out), each read row
    counted once."""
    left = Counter(json.dumps(dict(sorted(r.items())), sort_keys=True) for r in read)
    hits = 0
    for row in truth:
        key = json.dumps(dict(sorted(row.items())), sort_keys=True)
        if left[key]:
            left[key] -= 1
            hits += 1
    return hits


def judge_document(
    doc: Document, result: Mapping[str, Any], kinds: Mapping[str, str]
) -> dict[str, Any]:
    """One document's verdict against its declared fields (`kinds`: name -> kind)."""
    reviewed = any(s.get("name") in REVIEWS for s in result["stages"])
    fields: dict[str, dict[str, Any]] = {}
    for name, truth in doc.truth.items():
        got = result["fields"].get(name) or {}
        if kinds.get(name) == "table":
            read = got.get("rows")
            truth_rows = truth or []
            exact = rows_exact(truth_rows, read or [])
            ok = (read is None and truth is None) or (
                read is not None and exact == len(truth_rows) == len(read)
            )
            fields[name] = {
                "table": True,
                "printed": truth is not None,
                "read": read is not None,
                "ok": ok,
                "wrong": read is not None and not ok,
                "rows_truth": len(truth_rows),
                "rows_read": len(read or []),
                "rows_exact": exact,
            }
            continue
        value = got.get("value")
        ok = same_value(kinds.get(name, "text"), value, truth)
        fields[name] = {
            "table": False,
            "printed": truth is not None,
            "read": value is not None,
            "ok": ok,
            "wrong": value is not None and not ok,
            "truth": truth,
            "value": value,
        }
    wrong = sum(f["wrong"] for f in fields.values())
    return {
        "classified": result["docType"] == doc.doc_type,
        "reviewed": reviewed,
        "straight_through": not result["stages"] and all(f["ok"] for f in fields.values()),
        "silent_wrong": 0 if reviewed else wrong,
        "stages": sorted({str(s.get("name")) for s in result["stages"]}),
        "fields": fields,
    }


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def score_types(
    docs: Sequence[Document],
    results: Sequence[Mapping[str, Any]],
    kinds_by_type: Mapping[str, Mapping[str, str]],
) -> dict[str, Any]:
    """Figures per document type (the module's docstring says each)."""
    out: dict[str, Any] = {}
    for doc_type in sorted({d.doc_type for d in docs}):
        kinds = kinds_by_type.get(doc_type, {})
        pairs = [(d, r) for d, r in zip(docs, results, strict=True) if d.doc_type == doc_type]
        verdicts = [judge_document(d, r, kinds) for d, r in pairs]
        n = len(verdicts)
        names = list(dict.fromkeys(name for v in verdicts for name in v["fields"]))
        fields: dict[str, Any] = {}
        tables: dict[str, Any] = {}
        for name in names:
            got = [v["fields"][name] for v in verdicts if name in v["fields"]]
            if kinds.get(name) == "table":
                tables[name] = {
                    "rows_truth": sum(f["rows_truth"] for f in got),
                    "rows_read": sum(f["rows_read"] for f in got),
                    "rows_exact": sum(f["rows_exact"] for f in got),
                }
                continue
            printed = [f for f in got if f["printed"]]
            fields[name] = {
                "printed": len(printed),
                "read": sum(f["read"] for f in got),
                "exact": _share(sum(f["ok"] for f in printed), len(printed)),
            }
        out[doc_type] = {
            "documents": n,
            "classified": _share(sum(v["classified"] for v in verdicts), n),
            "straight_through": _share(sum(v["straight_through"] for v in verdicts), n),
            "fields_review_rate": _share(sum(v["reviewed"] for v in verdicts), n),
            "silent_wrong": sum(v["silent_wrong"] for v in verdicts),
            "fields": fields,
            "tables": tables,
            "by_stage": dict(sorted(Counter(s for v in verdicts for s in v["stages"]).items())),
        }
    return out


def misses(
    docs: Sequence[Document],
    results: Sequence[Mapping[str, Any]],
    kinds_by_type: Mapping[str, Mapping[str, str]],
) -> list[dict[str, Any]]:
    """Each document's type and each field not read exactly, for `--verbose`."""
    out = []
    for doc, result in zip(docs, results, strict=True):
        verdict = judge_document(doc, result, kinds_by_type.get(doc.doc_type, {}))
        wrong = {
            name: {k: f.get(k) for k in ("truth", "value", "rows_truth", "rows_exact") if k in f}
            for name, f in verdict["fields"].items()
            if not f["ok"]
        }
        out.append(
            {"doc": doc.ident, "type": result["docType"], "stages": verdict["stages"]}
            | {"misses": wrong}
        )
    return out


def declared_kinds() -> dict[str, dict[str, str]]:
    """name -> kind of every field each type of the shipped rules file declares."""
    from docflow.rules.model import DEFAULT_RULES, load_rules

    rules = load_rules(DEFAULT_RULES)
    out: dict[str, dict[str, str]] = {}
    for name in rules.fields.types:
        decl = rules.fields.for_type(name)
        if decl is not None:
            out[name] = {f.name: f.kind for f in decl.fields}
    return out
