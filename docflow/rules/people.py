"""The rules file's `[people]` table: who each reviewer is as an operator, for four eyes.

A reviewer proposes a supplier from a review page under their address; an operator approves it
from `docflow suppliers` under the principal they authenticated as (an IAM ARN in AWS, the OS
account locally). Nothing ties the two but this table: each reviewer's address and the
principals the same person holds.

    [people]
    "accounts@example.com" = ["arn:aws:iam::123456789012:user/accounts-clerk", "clerk"]
    "ap@example.com" = ["clerk"]          # one person, two addresses: both are the clerk

An approval needs a principal that is neither the proposer nor, through this table, the same
person (`docflow.suppliers.four_eyes`). Addresses and principals are compared as
`docflow.names.identity_key` says (NFKC, case folded, format characters removed), so two
entries that are one address spelled twice are refused, as is a principal with a space or a
character that renders as nothing. A bad entry is refused at load with the line it is on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docflow.names import describe, format_chars, identity_key

MAX_PRINCIPALS = 20
MAX_LENGTH = 2048  # an IAM ARN's own limit


@dataclass(frozen=True)
class People:
    """Each address with the principals the same person acts as, as the file writes them."""

    entries: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def groups(self) -> list[frozenset[str]]:
        """Each entry as one person's identities (identity keys: the address and its
        principals)."""
        return [
            frozenset({identity_key(a), *(identity_key(p) for p in ps)}) for a, ps in self.entries
        ]


NO_PEOPLE = People()


def parse_people(raw: Any, text: str = "") -> People:
    """`[people]` from the parsed file; ValueError naming the line (given the file's `text`)
    of the first bad entry."""
    if raw is None:
        return NO_PEOPLE
    if not isinstance(raw, Mapping):
        raise ValueError(_where(text, "", "[people] must be a table of address = [principals]"))
    entries: list[tuple[str, tuple[str, ...]]] = []
    seen: dict[str, str] = {}
    for address, principals in raw.items():
        problem = _address_problem(str(address), seen) or _principals_problem(principals)
        if problem:
            raise ValueError(_where(text, str(address), f"people.{address!r}: {problem}"))
        seen[identity_key(str(address))] = str(address)
        entries.append((str(address), tuple(str(p).strip() for p in principals)))
    return People(tuple(entries))


def _address_problem(address: str, seen: Mapping[str, str]) -> str:
    if "@" not in address:
        return "the key is a reviewer's e-mail address"
    if _unfit(address):
        return f"the address {_unfit(address)}"
    other = seen.get(identity_key(address))
    if other is not None:
        return f"the same address as {other!r} (addresses compare without case)"
    return ""


def _principals_problem(principals: Any) -> str:
    if not isinstance(principals, list) or not 1 <= len(principals) <= MAX_PRINCIPALS:
        return f"a list of 1 to {MAX_PRINCIPALS} principals (IAM ARNs, OS user names)"
    keys: set[str] = set()
    for principal in principals:
        if not isinstance(principal, str) or not principal.strip():
            return "each principal is a non-empty string"
        unfit = _unfit(principal.strip())
        if unfit:
            return f"principal {principal[:60]!r}: {unfit}"
        if identity_key(principal) in keys:
            return f"principal {principal[:60]!r} is listed twice"
        keys.add(identity_key(principal))
    return ""


def _unfit(value: str) -> str:
    """Why `value` cannot be an address or a principal ("" when it can)."""
    if len(value) > MAX_LENGTH:
        return f"is longer than {MAX_LENGTH} characters"
    if re.search(r"\s", value):
        return "holds a space"
    hidden = format_chars(value)
    if hidden:
        return f"holds the invisible character {describe(hidden[0])}"
    return ""


def _where(text: str, key: str, message: str) -> str:
    """`message` with the line of `key` in the file's `[people]` table (tomllib keeps no
    positions): the key's own line, else the table's header."""
    lines = text.splitlines()
    header = next(
        (n for n, line in enumerate(lines, 1) if re.match(r"^\s*\[\s*people\s*\]", line)), None
    )
    if header is None:
        return message
    found = header
    if key:
        for n in range(header + 1, len(lines) + 1):
            if lines[n - 1].lstrip().startswith("["):
                break
            if key in lines[n - 1]:
                found = n
                break
    return f"line {found}: {message}"
