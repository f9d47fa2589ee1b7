"""Four eyes on the supplier master: whether the operator approving a proposal is the person who
proposed it.

The proposer is the reviewer who ticked "add this supplier" (their address, as their signed
review link named them); the approver is the principal `docflow suppliers approve` runs as
(`docflow.cli.principal`: the caller's STS identity in AWS, the OS account locally), never a
name typed on the command line. Two identities are one person when

- they are one identity compared as `docflow.names.identity_key` says (NFKC, case folded,
  format characters removed: `AP@example.com\\u200b` is `ap@example.com`), or as look-alikes
  (their confusables skeletons agree: a Cyrillic `а` in an address is no other person);
- an IAM ARN's last part (its session or user name) is the other identity
  (`arn:aws:sts::1:assumed-role/ops/ap@example.com` is `ap@example.com`);
- the rules file's `[people]` table puts them in one person's entry, directly or through
  entries that share a principal (`docflow.rules.people`).

Every rule here can only refuse an approval; none lets one through.
"""

from __future__ import annotations

from docflow.names import identity_key, skeleton
from docflow.rules.people import NO_PEOPLE, People


def _forms(who: str) -> set[str]:
    """The identity keys `who` is known by: itself, its skeleton, and an ARN's last part."""
    key = identity_key(who)
    out = {key, identity_key(skeleton(key))}
    if key.startswith("arn:"):
        tail = key.rsplit("/", 1)[-1] if "/" in key else key.rsplit(":", 1)[-1]
        out |= {tail, identity_key(skeleton(tail))}
    return {k for k in out if k}


def _one(a: str, b: str) -> bool:
    return bool(_forms(a) & _forms(b))


def person(who: str, people: People = NO_PEOPLE) -> frozenset[str]:
    """Every identity the rules' `[people]` table says is `who`'s person (with `who`)."""
    found = {identity_key(who)}
    groups = people.groups()
    grew = True
    while grew:
        grew = False
        for group in groups:
            if not group <= found and any(_one(a, b) for a in group for b in found):
                found |= group
                grew = True
    return frozenset(found)


def same_person(a: str, b: str, people: People = NO_PEOPLE) -> bool:
    """Whether `a` and `b` are one person (see the module's doc)."""
    return any(_one(b, identity) for identity in person(a, people))


def approver_problem(approver: str, proposer: str, people: People = NO_PEOPLE) -> str:
    """Why `approver` may not approve what `proposer` proposed ("" when they may)."""
    if not identity_key(approver):
        return "who approves it? docflow found no principal to record"
    if not identity_key(proposer):
        return "it names no proposer, so four eyes cannot hold: reject it"
    if _one(proposer, approver):
        return f"it was proposed by {proposer}: another person must approve it"
    if same_person(proposer, approver, people):
        return (
            f"it was proposed by {proposer}, whom the rules file's [people] table names as "
            f"{approver} too: another person must approve it"
        )
    return ""
