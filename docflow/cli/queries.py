"""`docflow pending | stuck | failed | show | reprocess`: questions to the read model.

Commands import boto3 clients, the local stack and the settings inside their functions: `docflow
--help` and a command's --help then start in a fraction of the time (start-up time is the only
reason; nothing here imports upward).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from docflow.active_content import short
from docflow.cli.exits import NOT_FOUND, DocumentNotFound
from docflow.cli.output import count_of, print_json, table
from docflow.cli.refs import document_id
from docflow.cli.shapes import list_item
from docflow.cli.stack import maybe_local, model
from docflow.cost import cost_line
from docflow.readmodel.items import DocumentState, FieldValue, HistoryItem, ShownDocument
from docflow.readmodel.queries import parse_age
from docflow.readmodel.transitions import PENDING_REVIEW
from docflow.suppliers.shown import bank_lines, iban_place

if TYPE_CHECKING:
    from docflow.readmodel.queries import Page


def listing(
    args: argparse.Namespace,
    page: Page[DocumentState],
    kind: str,
    items: Sequence[Mapping[str, object]] | None = None,
) -> int:
    items = items if items is not None else [list_item(i) for i in page.items]
    if args.json:
        print_json(items if not page.next_token else {"items": items, "nextToken": page.next_token})
        return 0
    if not items:
        print(f"no {kind} documents")
    else:
        when = {"pending": "pendingSince", "stuck": "updatedAt", "failed": "failedAt"}[kind]
        extra = {
            "pending": ["stage"],
            "stuck": ["status", "operation", "since"],
            "failed": ["reason"],
        }
        columns = extra[kind]
        print(
            table(
                [
                    [i["documentId"], key_cell(i), *(i[c] or "-" for c in columns), i[when]]
                    for i in items
                ],
                ["document", "key", *columns, when],
            )
        )
        for i in items if kind == "stuck" else []:  # why each counts as stuck, in words
            print(f"{i['documentId']}: {i['why']}")
    if page.next_token:
        print(f"more: --next-token {page.next_token}")
    return 0


def key_cell(item: Mapping[str, object]) -> str:
    """The key (what `show` takes back) and, where the key's file name is not what a person
    calls the document (a packet's part), that name beside it."""
    key = str(item.get("key") or "")
    name = item.get("name") or ""
    return key if not name or name == key.rsplit("/", 1)[-1] else f"{key} ({name})"


def cmd_pending(args: argparse.Namespace) -> int:
    maybe_local(args)
    return listing(args, model().pending(args.limit, args.next_token), "pending")


def cmd_stuck(args: argparse.Namespace) -> int:
    from docflow.cli.stuck import stuck_items

    maybe_local(args)
    page = model().stuck(parse_age(args.older_than), args.limit, args.next_token)
    return listing(args, page, "stuck", stuck_items(page.items))


def cmd_failed(args: argparse.Namespace) -> int:
    maybe_local(args)
    return listing(args, model().failed(args.limit, args.next_token), "failed")


def print_enrichment(state: DocumentState) -> None:
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


def page_lines(state: DocumentState) -> list[str]:
    """The pages (and blank ones) and the split's active-content flag, as `show` prints them."""
    lines = []
    if state.get("pages") is not None:
        blank = int((state.get("engines") or {}).get("blank", 0))
        lines.append(f"{'pages':11} {state['pages']}" + (f" ({blank} blank)" if blank else ""))
    if state.get("activeContent"):  # what the original would run or reach when opened
        lines.append(f"{'active':11} active-content: {short(state['activeContent'])}")
    return lines


def cmd_show(args: argparse.Namespace) -> int:
    from docflow.cli.einvoice_lines import einvoice_data, einvoice_lines
    from docflow.cli.packets import children_table, is_packet, show_lines
    from docflow.cli.reviewed import fields_shown, stage_lines, stages_shown

    maybe_local(args)
    shown = ShownDocument(**model().show(document_id(args.document)))
    state = shown["state"] or DocumentState()
    if is_packet(state):  # its parts, as each last reported (docs/packets.md)
        shown["children"] = model().children(state["documentId"])
    # An e-invoice's lines and VAT breakdown, from S3 (docs/einvoice.md).
    invoice = einvoice_data(state)
    # The reviews as they stand: every stage, the ones the run added too, and the fields with
    # the corrections approved so far (the state has them only once finalized).
    stages = stages_shown(state, shown["history"])
    fields = fields_shown(state, shown["history"])
    if args.json:
        reviewed = {"stages": stages, **({"fields": fields} if fields is not None else {})}
        print_json({**shown, **reviewed, **({"einvoice": invoice} if invoice else {})})
        return 0 if shown["state"] else NOT_FOUND
    if not shown["state"]:
        raise DocumentNotFound(args.document)
    state = shown["state"]
    parent = (
        model().states([state["parentId"]]).get(state["parentId"])
        if state.get("parentId")
        else None
    )
    for line in [*head_lines(state, parent), *page_lines(state)]:
        print(line)
    # The duplicate check's module loads the parsers: only `show` pays for it.
    from docflow.suppliers.duplicates import duplicate_lines

    for line in [*show_lines(state, parent), *why(state), *duplicate_lines(state)]:
        print(line)
    for line in stage_lines(stages):
        print(line)
    if state.get("updatedAt"):
        print(f"{'updatedAt':11} {state['updatedAt']}")
    cost = cost_line(state)
    if cost:
        print(f"{'cost':11} {cost}")
    print_enrichment(state)
    print_fields(state, fields)
    for line in einvoice_lines(state, invoice):
        print(line)
    if shown.get("children"):
        print()
        parts = children_table(shown["children"])
        print(table(parts, ["part", "document", "type", "status", "stage or reason"]))
    print()
    print(
        table(
            [
                [h["at"], status_label(h), stage_label(h), h["cause"], h["runId"][-10:]]
                for h in shown["history"]
            ],
            ["at", "status", "stage", "cause", "run"],
        )
    )
    for line in vote_lines(shown["history"]):
        print(line)
    return 0


def vote_lines(history: Sequence[HistoryItem]) -> list[str]:
    """A stage's decision carries every vote (quorum stages have several)."""
    lines = []
    for h in history:
        votes = (h.get("payload") or {}).get("votes") or []
        if len(votes) > 1:
            said = ", ".join(f"{v['reviewer']} {v['decision']} {v['at']}" for v in votes)
            lines.append(f"votes {stage_label(h)}: {said}")
    return lines


def head_lines(state: DocumentState, parent: DocumentState | None) -> list[str]:
    """`show`'s first lines. A packet's part is named after its packet's file and pages, and
    its version is its packet's: the part's own PDF is written once, unversioned (`null`)."""
    from docflow.ids import name_of

    lines = []
    for key in ("documentId", "key", "version", "status", "docType"):
        value = state.get(key)
        if key == "version" and state.get("parentId"):
            packet = (parent or {}).get("version")
            value = f"{packet} (the packet's)" if packet else None
        if value is not None:
            lines.append(f"{key:11} {value}")
        if key == "key" and state.get("parentId"):
            lines.append(
                f"{'name':11} {name_of({**state, 'parentKey': _packet_key(state, parent)})}"
            )
    return lines


def _packet_key(state: DocumentState, parent: DocumentState | None) -> str:
    return str(state.get("parentKey") or (parent or {}).get("key") or "")


def status_label(report: HistoryItem) -> str:
    """A history row's status with the reason an ending carries: `archived (superseded)`."""
    reason = (report.get("payload") or {}).get("reason")
    return f"{report['status']} ({reason})" if reason else str(report["status"])


def stage_label(report: HistoryItem) -> str:
    from docflow.readmodel.schema import stage_label as label

    return label(report)


def why(state: DocumentState) -> list[str]:
    """Lines that say why the document is where it is: a failure's reason and message, the
    stage waiting and on whom, who decided a stage that ended it, with the reason and
    comment."""
    lines = []
    status = state.get("status")
    if state.get("reason"):
        lines.append(f"{'reason':11} {state['reason']}")
    if status == "failed" and state.get("message"):
        lines.append(f"{'message':11} {state['message']}")
    if status == PENDING_REVIEW:
        who = ", ".join(state.get("reviewers") or []) or "-"
        due = f", due {state['reviewDeadline']}" if state.get("reviewDeadline") else ""
        lines.append(f"{'waiting':11} stage {state.get('stageName') or '-'} on {who}{due}")
    elif state.get("decision") in ("rejected", "timed-out") or state.get("rejectReason"):
        said = [f"stage {state.get('stageName') or '-'} {state.get('decision', '')}".rstrip()]
        if state.get("reviewer"):
            said.append(f"by {state['reviewer']}")
        if state.get("decidedAt"):
            said.append(f"at {state['decidedAt']}")
        lines.append(f"{'decision':11} {' '.join(said)}")
        if state.get("rejectReason"):
            lines.append(f"{'reasonCode':11} {state['rejectReason']}")
        if state.get("comment"):
            lines.append(f"{'comment':11} {state['comment']}")
    return lines


def print_fields(state: DocumentState, shown: Mapping[str, FieldValue] | None = None) -> None:
    """The fields as they stand (`shown`, from `reviewed.fields_shown`: the corrections approved
    so far in place; the state's own by default), with the checks that sent them to a person,
    each said corrected once it was."""
    fields = shown if shown is not None else state.get("fields") or {}
    if not fields:
        return
    print()
    rows = []
    for name, f in sorted(fields.items()):
        was = f.get("original")
        if isinstance(was, list):  # a table's rows as read
            was = count_of(len(was), "row")
        note = (
            f"corrected by {f['correctedBy']} (was {was if was is not None else 'not read'})"
            if "correctedBy" in f
            else ""
        )
        note = note or source_note(f)
        confidence = f"{float(f.get('confidence', 0)):.2f}"
        table_rows = f.get("rows")
        value = count_of(len(table_rows), "row") if isinstance(table_rows, list) else f.get("value")
        rows.append([name, value, confidence, f.get("page") or "-", note])
    print(table(rows, ["field", "value", "confidence", "page", "note"]))
    for name, f in sorted(fields.items()):
        if isinstance(f.get("rows"), list):
            print(f"\n{name}:")
            print(rows_table(f["rows"]))
    for check in state.get("fieldChecks") or []:
        by = (fields.get(str(check.get("field"))) or {}).get("correctedBy")
        done = f" (corrected by {by})" if by else ""
        print(f"sent to a person: {check.get('code')}: {check.get('message')}{done}")
    print_supplier(state)


def rows_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """A table field's rows, aligned and indented under its name; a blank cell as "-"."""
    if not rows:
        return "  (no rows)"
    columns = list(dict.fromkeys(c for row in rows for c in row))
    cells = [[i, *(row.get(c, "-") for c in columns)] for i, row in enumerate(rows, 1)]
    return "\n".join(f"  {line}" for line in table(cells, ["#", *columns]).splitlines())


def source_note(f: FieldValue) -> str:
    """Where a value came from when it was not the page's rules: the registry, the profile."""
    if f.get("source") == "registry":
        printed = f.get("printed")
        return "from the supplier registry" + (f" (printed: {printed})" if printed else "")
    if f.get("source") == "profile":
        return "read where the layout's learned profile says"
    return ""


def print_supplier(state: DocumentState) -> None:
    """Which supplier was matched and how, and each IBAN with whose it was judged."""
    supplier = state.get("supplier") or {}
    if supplier.get("status") == "unknown":
        print("supplier: unknown (no registered supplier issued it)")
    elif supplier.get("status") == "ambiguous":
        print("supplier: ambiguous (look-alike layouts of two or more suppliers)")
    elif supplier:
        how = "certain" if supplier.get("certain") else f"by name, score {supplier.get('score')}"
        if supplier.get("by") not in (None, "name") and not supplier.get("certain"):
            how = "the page names another issuer"
        print(
            f"supplier: {supplier.get('name')} ({supplier.get('supplierId')}), "
            f"matched by {supplier.get('key')} ({how})"
            + (f", evidence: {', '.join(map(str, ev))}" if (ev := supplier.get("evidence")) else "")
        )
    for iban in state.get("ibans") or []:
        whose = "the issuer's" if iban.get("owner") == "issuer" else "not the issuer's"
        valid = "" if iban.get("valid") else ", fails its check"
        where = f"IBAN {iban.get('iban')} {iban_place(iban)}"
        print(f"{where}: {whose} ({iban.get('why')}{valid})")
    bank = state.get("bank") or {}
    if bank:
        print(f"bank details: {bank.get('verdict')}")
        for line in bank_lines(bank):
            print(f"  {line}")


def cmd_reprocess(args: argparse.Namespace) -> int:
    from docflow.ids import DocumentRef, PartOf

    config = maybe_local(args)
    state = model().show(document_id(args.document))["state"]
    if not state or not state.get("bucket") or not state.get("key"):
        raise DocumentNotFound(args.document)
    sequencer, event_ms, generation = state["runOrder"].split(":")
    doc = DocumentRef(
        state["bucket"],
        state["key"],
        state["version"],
        sequencer.lstrip("0"),
        int(generation) + 1,
        state.get("etag", ""),
        int(event_ms),
        # A packet's part keeps its packet (its run is named from it, its reports carry it).
        PartOf(
            state["parentId"],
            state["parentRunId"],
            int(state["parentPages"][0]),
            int(state["parentPages"][1]),
            str(state.get("parentKey") or ""),
        )
        if state.get("parentId")
        else None,
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
    """The orchestrator's starter: Lambda's without a local stack, else the stack's runner."""
    from dataclasses import replace

    from docflow.intake import build_starter
    from docflow.settings import load_settings

    settings = load_settings()
    if config is None:
        return build_starter(settings.orchestrator_function, replace(settings, local_runner_url=""))
    from docflow.local.services.starter import local_starter

    local = replace(
        settings, local_runner_url=config.runner_url, start_claims_table=config.claims_table
    )
    return local_starter("docflow-orchestrator", local)
