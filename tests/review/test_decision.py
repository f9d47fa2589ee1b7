"""The decision record: one parse with a named error per field, one JSON shape for every side."""

from __future__ import annotations

import json

import pytest

from docflow.review.stage.decision import Decision, DecisionError
from docflow.review.stage.decision_history import decision_payload
from docflow.review.stage.records import decision_of


def test_parse_names_the_field_that_makes_a_decision_invalid() -> None:
    for raw, field in (
        ("not json", "approved"),
        ({"approved": "yes"}, "approved"),
        ({"approved": True, "corrections": {"currency": "Euros"}}, "corrections"),
        ({"approved": True, "docType": "invoice"}, "docType"),  # not a triage stage
    ):
        with pytest.raises(DecisionError) as caught:
            Decision.parse(raw)
        assert caught.value.field == field, raw
        assert not caught.value.decision.approved
    with pytest.raises(DecisionError) as caught:
        Decision.parse({"approved": True, "reviewer": "a@x", "docType": "ship"}, ["invoice"])
    assert caught.value.field == "docType" and caught.value.decision.reviewer == "a@x"


def test_the_json_round_trips_and_leaves_out_what_says_nothing() -> None:
    raw = {
        "approved": False,
        "reviewer": "a@x",
        "comment": "no",
        "decidedAt": "2026-12-01T10:00:00+00:00",
        "rejectReason": "wrong-document",
        "votes": [{"reviewer": "a@x", "decision": "rejected", "at": "t"}],
    }
    assert Decision.parse(json.dumps(raw)).to_json() == raw
    assert Decision(approved=True).to_json() == {
        "approved": True,
        "reviewer": "",
        "comment": "",
        "decidedAt": "",
    }


def test_a_stage_records_decision_keeps_its_stored_shape() -> None:
    vote = {"approved": True, "comment": "ok", "docType": "invoice", "at": "t1"}
    item = {"quorum": 1, "approvals": 1, "votes": {"a@x": vote}, "reviewers": ["a@x"]}
    made = decision_of(item, "a@x")
    assert list(made.to_json().items()) == [
        ("approved", True),
        ("reviewer", "a@x"),
        ("comment", "ok"),
        ("decidedAt", "t1"),
        ("votes", [{"reviewer": "a@x", "decision": "approved", "at": "t1", "comment": "ok"}]),
        ("quorum", 1),
        ("docType", "invoice"),
    ]
    assert made.as_vote() == {"approved": True, "comment": "ok", "docType": "invoice", "at": "t1"}
    payload = decision_payload(0, "triage", "approved", "", made, {})
    assert list(payload) == [
        "stageIndex",
        "stageName",
        "decision",
        "reviewer",
        "comment",
        "decidedAt",
        "votes",
        "docType",
    ]


def test_a_decided_stage_is_woken_with_the_decision_it_stored() -> None:
    """A stage decided while its deciding request could not send the callback is woken by the
    next look: the callback carries the decision the ending stored (a triage pick included),
    without the ending's own keys, and the execution reads it back whole."""
    from docflow.review.stage.liveness import Liveness
    from docflow.review.stage.records import DECIDED

    vote = {"approved": True, "comment": "ok", "docType": "invoice", "at": "t1"}
    item = {"quorum": 1, "approvals": 1, "votes": {"a@x": vote}, "reviewers": ["a@x"]}
    made = decision_of(item, "a@x")
    sent: list[tuple[str, bytes]] = []
    woken: list[str] = []

    class Callbacks:
        def success(self, callback_id: str, result: bytes) -> None:
            sent.append((callback_id, result))

    class Stages:
        def mark_woken(self, pk: str) -> None:
            woken.append(pk)

    wait = {"pk": "STAGE#r#0", "callbackId": "cb-1"}
    wait["ending"] = {"how": DECIDED, **made.to_json(), "at": 1700000000}
    Liveness(Callbacks(), None, Stages()).wake(wait)  # type: ignore[arg-type]
    assert [cb for cb, _ in sent] == ["cb-1"] and woken == ["STAGE#r#0"]
    assert json.loads(sent[0][1]) == made.to_json()
    assert Decision.parse(sent[0][1], ["invoice", "contract"]).doc_type == "invoice"
    assert Decision.stored(wait["ending"]) == made
    Liveness(Callbacks(), None, Stages()).wake({**wait, "woken": True})  # once only
    assert len(sent) == 1


def test_a_stored_decision_reads_back_every_field_it_wrote() -> None:
    # A split stage's parts were dropped here once: the woken packet read its reviewer's
    # approval as invalid and archived itself.
    made = Decision.made(True, "a@x", "ok", parts=[[1, 1], [2, 3]])
    assert made.parts == ((1, 1), (2, 3))
    assert Decision.stored({"how": "decided", **made.to_json(), "at": 1}) == made


def test_only_the_decision_module_builds_a_decisions_dict() -> None:
    """Every side (the desk, the votes, the callback API, the orchestrator and its steps) makes
    and reads `Decision`; a dict literal keyed `approved` anywhere else in the product is a
    second decision shape growing back (a test's wire body, as a service sends it, is not)."""
    import ast

    from tests.support.imports import PRODUCT, ROOT

    home = ROOT / "docflow" / "review" / "stage" / "decision.py"
    wrong = []
    for top in PRODUCT:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == home:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == "approved" for k in node.keys
                ):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert wrong == []
