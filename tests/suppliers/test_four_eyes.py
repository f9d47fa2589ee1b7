"""Four eyes from authenticated identities (issue 56, item 3): the approver of a supplier
proposal is the principal the operator is authenticated as (moto's STS here: the IAM user whose
access key the command runs with), never `--by`; two spellings of one identity (case, NFKC, a
zero-width character) are one person; the rules file's `[people]` table puts a reviewer's
address and an operator's principals in one person, so a reviewer cannot approve what they
proposed from another account; and a proposal the registry collided with after it was filed is
marked a conflict and refused cleanly (`conflict` is a DynamoDB reserved word)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docflow import aws
from docflow.cli import main
from docflow.rules.model import DEFAULT_RULES, load_rules
from docflow.settings import SettingsError, load_settings
from docflow.suppliers import proposals
from docflow.suppliers.csv_import import import_suppliers
from tests.suppliers.papers import BLAUWAL_VAT, OTHER_VAT
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry

PROPOSER = "ap@example.com"


def filed(name: str = "Someone Else AG", vat: str = OTHER_VAT, proposer: str = PROPOSER) -> str:
    """A pending proposal, as the `propose supplier` step files it."""
    pid = proposals.proposal_id(f"d-{name}", "v-1")
    p = proposals.Proposal(
        pid,
        name,
        {"vat": (vat,)},
        "EUR",
        f"d-{name}",
        "v-1",
        proposer,
        "2026-12-01T10:00:00+00:00",
    )
    assert proposals.propose(registry(), p).status == proposals.PENDING
    return pid


def status_of(pid: str) -> str:
    found = proposals.get(registry(), pid)
    assert found is not None
    return found.status


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    capsys.readouterr()
    code = main(["suppliers", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


@pytest.fixture
def operator(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """`operator(name)`: the commands from now on run with the access key of moto's IAM user
    `name` (STS names it); its ARN."""

    def become(name: str) -> str:
        iam = aws.client("iam")
        arn = iam.create_user(UserName=name)["User"]["Arn"]
        key = iam.create_access_key(UserName=name)["AccessKey"]
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", key["AccessKeyId"])
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key["SecretAccessKey"])
        aws.reset_clients()  # the next clients sign with that key
        return str(arn)

    yield become
    aws.reset_clients()  # made again, lazily, after the environment is restored


def people_rules(folder: Path, monkeypatch: pytest.MonkeyPatch, table: str) -> Path:
    """The shipped rules with `table` as their `[people]` table, as the pipeline's rules."""
    text = DEFAULT_RULES.read_text()
    start = text.index("[people]")
    end = text.find("\n[", start + 1)
    path = folder / "people-rules.toml"
    path.write_text(text[:start] + table + (text[end:] if end != -1 else "\n"))
    monkeypatch.setenv("DOCFLOW_RULES_PATH", str(path))
    load_settings.cache_clear()
    return path


@pytest.mark.parametrize(
    "approver",
    [
        "ap@example.com\u200b",  # a zero-width space appended
        "\u2066ap@example.com\u2069",  # wrapped in a bidi isolate
        "AP@Example.COM",
        "ａｐ@example.com",  # fullwidth: NFKC makes it ap@
        " ap@exam\u00adple.com ",  # a soft hyphen inside
        "аp@example.com",  # a Cyrillic а: its skeleton is the address's
        "arn:aws:sts::123456789012:assumed-role/Operators/AP@example.com",
    ],
)
def test_the_proposers_identity_in_another_spelling_cannot_approve(
    stack: Stack, approver: str
) -> None:
    pid = filed()
    with pytest.raises(proposals.ProposalRefused, match="another person must approve"):
        proposals.approve(registry(), pid, approver)
    assert registry().all() == [] and status_of(pid) == "pending"


def test_by_is_refused_and_the_approver_is_who_sts_says(
    stack: Stack, operator: Callable[[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Against AWS (moto here), `--by` names nobody: the proposer's address typed with a
    zero-width space, or a colleague's, is refused before anything is read; without it the
    approval is recorded under the IAM principal the credentials belong to."""
    pid = filed()
    for typed in (f"{PROPOSER}\u200b", "controller@example.com"):
        code, answer = cli(capsys, "approve", pid, "--by", typed)
        assert code == 2 and isinstance(answer, dict)
        assert answer["error"].startswith("--by is refused")
    assert status_of(pid) == "pending" and registry().all() == []

    controller = operator("controller")
    code, done = cli(capsys, "approve", pid)
    assert code == 0 and isinstance(done, dict) and done["by"] == controller
    (entry,) = registry().history_of(done["supplierId"])
    assert entry.by == controller and f"proposed by {PROPOSER}" in entry.detail
    decided = proposals.get(registry(), pid)
    assert decided is not None and decided.decided_by == controller


def test_a_reviewer_mapped_to_the_operators_principal_cannot_approve_their_own_proposal(
    stack: Stack,
    operator: Callable[[str], str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clerk reviews as ap@example.com and operates as the IAM user `ap-clerk`: the rules
    file's `[people]` says so, and the approval is refused; `anna` is the clerk too (she shares
    the principal `clerk` with ap@'s entry), and is refused as well; the controller approves."""
    people_rules(
        tmp_path,
        monkeypatch,
        '[people]\n"ap@example.com" = ["arn:aws:iam::123456789012:user/ap-clerk", "clerk"]\n'
        '"anna@example.com" = ["clerk", "arn:aws:iam::123456789012:user/anna"]\n',
    )
    pid = filed()
    for name in ("ap-clerk", "anna"):
        operator(name)
        code, refused = cli(capsys, "approve", pid)
        assert code == 2 and isinstance(refused, dict)
        assert "[people]" in refused["error"] and "another person must approve" in refused["error"]
        assert status_of(pid) == "pending" and registry().all() == []
    operator("controller")
    code, done = cli(capsys, "approve", pid)
    assert code == 0 and isinstance(done, dict) and done["by"].endswith(":user/controller")


def test_the_local_identity_is_the_os_account_not_user_or_logname(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Locally the command runs as its OS account, looked up by user id: `USER=controller`
    in the environment changes nobody."""
    import os
    import pwd

    from docflow.cli.suppliers import _actor

    account = pwd.getpwuid(os.getuid()).pw_name
    for name in ("USER", "LOGNAME", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, "controller")
    assert _actor(argparse.Namespace(aws=False, by=None)) == account


def test_a_proposal_the_registry_collided_with_after_filing_is_marked_a_conflict(
    stack: Stack,
) -> None:
    """Filed pending; another supplier registered its VAT id since. The approval re-checks,
    marks it `conflict` (the reserved word, by a placeholder) saying with what, and refuses."""
    pid = filed("Someone Else AG", BLAUWAL_VAT)
    import_suppliers(registry(), f"id,name,vat\nholder,Holder AG,{BLAUWAL_VAT}\n", "ops")
    with pytest.raises(proposals.ProposalRefused, match="conflicts with the registry"):
        proposals.approve(registry(), pid, "controller@example.com")
    after = proposals.get(registry(), pid)
    assert after is not None and after.status == "conflict"
    assert f"vat:{BLAUWAL_VAT} belongs to supplier 'holder'" in after.conflict
    assert [s.supplier_id for s in registry().all()] == ["holder"]
    with pytest.raises(proposals.ProposalRefused, match="is conflict"):
        proposals.approve(registry(), pid, "controller@example.com")
    rejected = proposals.reject(registry(), pid, "controller@example.com", "taken")
    assert rejected.status == "rejected" and rejected.reason == "taken"


def test_a_conflict_found_after_another_operator_decided_is_refused_saying_so(
    stack: Stack,
) -> None:
    """Two operators at once: one rejects while the other's approval finds a conflict. The
    conflict is marked only on a proposal still pending; the late one is told it was decided."""
    pid = filed()
    stale = proposals.get(registry(), pid)
    assert stale is not None
    proposals.reject(registry(), pid, "controller@example.com", "no")
    with pytest.raises(proposals.ProposalRefused, match="is rejected: decided meanwhile"):
        proposals._mark_conflict(registry(), stale, "vat:... belongs to supplier 'holder'")
    assert status_of(pid) == "rejected"


def test_the_shipped_rules_say_who_is_who(tmp_path: Path) -> None:
    people = load_rules(DEFAULT_RULES).people
    assert people.entries and all("@" in address for address, _ in people.entries)


@pytest.mark.parametrize(
    "table,why",
    [
        ('"ap@example.com" = "clerk"', "a list of 1 to 20 principals"),
        ('"ap@example.com" = []', "a list of 1 to 20 principals"),
        ('"ap@example.com" = ["cl erk"]', "holds a space"),
        ('"ap@example.com" = ["clerk\u200b"]', "U+200B"),
        ('"ap@example.com" = ["clerk", "CLERK"]', "listed twice"),
        ('"clerk" = ["clerk"]', "a reviewer's e-mail address"),
        ('"ap@example.com" = ["a"]\n"AP@example.com" = ["b"]', "the same address as"),
    ],
)
def test_a_bad_people_table_is_refused_naming_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, why: str
) -> None:
    path = people_rules(tmp_path, monkeypatch, f"[people]\n{table}\n")
    text = path.read_text()
    bad = table.splitlines()[-1].split(" = ")[0]
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith(bad))
    with pytest.raises(SettingsError) as refused:
        load_rules(path)
    assert f"line {line}: people." in str(refused.value) and why in str(refused.value)
