"""`docflow pending | stuck | failed | show | reprocess`: questions to the read model.

Commands import boto3 clients, the local stack and the settings inside their functions: `docflow
--help` and a command's --help then start in a fraction of the time (start-up time is the only
reason; nothing here imports upward).
"""

from __future__ import annotations

import argparse
from typing import Any

from docflow.cli.documents import cost_line
from docflow.cli.output import print_json, table
from docflow.cli.stack import maybe_local, model
from docflow.readmodel.queries import parse_age


def listing(args: argparse.Namespace, page: Any, kind: str) -> int:
    items = [
        {
            "documentId": i.get("documentId"),
            "version": i.get("version"),
            "key": i.get("key"),
            "status": i.get("status"),
            "stage": i.get("stageName"),
            "pendingSince": i.get("pendingSince"),
            "updatedAt": i.get("updatedAt"),
            "reviewers": i.get("reviewers", []),
            "reviewLinks": i.get("reviewLinks", []),
            "reason": i.get("reason"),
            "failedAt": i.get("failedAt"),
        }
        for i in page.items
    ]
    if args.json:
        print_json(items if not page.next_token else {"items": items, "nextToken": page.next_token})
        return 0
    if not items:
        print(f"no {kind} documents")
    else:
        when = {"pending": "pendingSince", "stuck": "updatedAt", "failed": "failedAt"}[kind]
        extra = {"pending": "stage", "stuck": "status", "failed": "reason"}[kind]
        print(
            table(
                [[i["documentId"], i["key"] or "", i[extra] or "", i[when] or ""] for i in items],
                ["document", "key", extra, when],
            )
        )
    if page.next_token:
        print(f"more: --next-token {page.next_token}")
    return 0


def cmd_pending(args: argparse.Namespace) -> int:
    maybe_local(args)
    return listing(args, model().pending(args.limit, args.next_token), "pending")


def cmd_stuck(args: argparse.Namespace) -> int:
    maybe_local(args)
    page = model().stuck(parse_age(args.older_than), args.limit, args.next_token)
    return listing(args, page, "stuck")


def cmd_failed(args: argparse.Namespace) -> int:
    maybe_local(args)
    return listing(args, model().failed(args.limit, args.next_token), "failed")


def print_enrichment(state: dict[str, Any]) -> None:
    """Title, risk with its reasons' pages, and how the enrichment was made."""
    how = state.get("enrichment") or {}
    if not how:
        return
    if state.get("summary"):
        print(f"{'title':11} {state['summary']['title']}")
    risk = state.get("risk") or {}
    if risk:
        reasons = ", ".join(f"{r['code']} (page {r['page']})" for r in risk.get("reasons", []))
        print(f"{'risk':11} {risk['level']}" + (f": {reasons}" if reasons else ""))
    job = f", job {how['jobId']}" if how.get("jobId") else ""
    complete = how.get("status") == "complete"
    ended = "" if complete else f" ({how.get('status')}: {how.get('reason', '')})"
    print(f"{'enriched':11} {how.get('mode')} by {how.get('engine')}{job}{ended}")


def cmd_show(args: argparse.Namespace) -> int:
    maybe_local(args)
    shown = model().show(args.document)
    if args.json:
        print_json(shown)
        return 0 if shown["state"] else 4
    if not shown["state"]:
        print(f"no document {args.document}")
        return 4
    state = shown["state"]
    for key in (
        "documentId",
        "key",
        "version",
        "status",
        "docType",
        "pages",
        "reason",
        "updatedAt",
    ):
        if state.get(key) is not None:
            print(f"{key:11} {state[key]}")
    cost = cost_line(state)
    if cost:
        print(f"{'cost':11} {cost}")
    print_enrichment(state)
    print_fields(state)
    print()
    print(
        table(
            [
                [h["at"], h["status"], h["stage"], h["cause"], h["runId"][-10:]]
                for h in shown["history"]
            ],
            ["at", "status", "stage", "cause", "run"],
        )
    )
    # A stage's decision carries every vote (quorum stages have several).
    for h in shown["history"]:
        votes = (h.get("payload") or {}).get("votes") or []
        if len(votes) > 1:
            said = ", ".join(f"{v['reviewer']} {v['decision']} {v['at']}" for v in votes)
            print(f"votes {h['stage']}: {said}")
    return 0


def print_fields(state: dict[str, Any]) -> None:
    """The extracted fields, with the checks that sent them to a person and any correction."""
    fields = state.get("fields") or {}
    if not fields:
        return
    print()
    rows = []
    for name, f in sorted(fields.items()):
        was = f.get("original")
        note = (
            f"corrected by {f['correctedBy']} (was {was if was is not None else 'not read'})"
            if "correctedBy" in f
            else ""
        )
        note = note or source_note(f)
        confidence = f"{float(f.get('confidence', 0)):.2f}"
        rows.append([name, f.get("value"), confidence, f.get("page") or "-", note])
    print(table(rows, ["field", "value", "confidence", "page", "note"]))
    for check in state.get("fieldChecks") or []:
        print(f"sent to a person: {check.get('code')}: {check.get('message')}")
    print_supplier(state)


def source_note(f: dict[str, Any]) -> str:
    """Where a value came from when it was not the page's rules: the registry, the profile."""
    if f.get("source") == "registry":
        printed = f.get("printed")
        return "from the supplier registry" + (f" (printed: {printed})" if printed else "")
    if f.get("source") == "profile":
        return "read where the supplier's profile says"
    return ""


def print_supplier(state: dict[str, Any]) -> None:
    """Which supplier was matched and how, and each IBAN with whose it was judged."""
    supplier = state.get("supplier")
    if supplier:
        how = "certain" if supplier.get("certain") else f"by name, score {supplier.get('score')}"
        print(
            f"supplier: {supplier.get('name')} ({supplier.get('supplierId')}), "
            f"matched by {supplier.get('key')} ({how})"
        )
    for iban in state.get("ibans") or []:
        whose = "the issuer's" if iban.get("owner") == "issuer" else "not the issuer's"
        valid = "" if iban.get("valid") else ", fails its check"
        where = f"IBAN {iban.get('iban')} on page {iban.get('page')}"
        print(f"{where}: {whose} ({iban.get('why')}{valid})")


def cmd_reprocess(args: argparse.Namespace) -> int:
    from docflow.ids import DocumentRef

    config = maybe_local(args)
    state = model().show(args.document)["state"]
    if not state or not state.get("bucket") or not state.get("key"):
        raise SystemExit(f"docflow: no document {args.document} to reprocess")
    sequencer, event_ms, generation = state["runOrder"].split(":")
    doc = DocumentRef(
        state["bucket"],
        state["key"],
        state["version"],
        sequencer.lstrip("0"),
        int(generation) + 1,
        state.get("etag", ""),
        int(event_ms),
    )
    started = starter(config).start(doc)
    result = {
        "documentId": doc.document_id,
        "runId": doc.run_id,
        "started": started,
        "generation": doc.generation,
    }
    print_json(result) if args.json else print(
        f"reprocessing {doc.document_id} as run {doc.run_id}"
    )
    return 0


def starter(config: Any) -> Any:
    from docflow.intake import LambdaStarter, LocalRunnerStarter
    from docflow.settings import load_settings

    if config is None:
        import os

        return LambdaStarter(
            os.environ.get("DOCFLOW_ORCHESTRATOR_FUNCTION", "docflow-orchestrator")
        )
    return LocalRunnerStarter(
        config.runner_url,
        "docflow-orchestrator",
        config.claims_table,
        load_settings().execution_timeout_s,
    )
