"""`docflow inbox ADDRESS` and `docflow reviewers revoke ADDRESS | revoke-link URL`, locally.

`inbox` prints a reviewer's inbox link as `docflow mail` prints review links: locally, for the
person running the stack; in AWS the digest mails it. `reviewers revoke` writes the same
`REVOKED#<address>` item an operator writes in AWS (docs/reviewers.md, "Revoking a reviewer");
`reviewers revoke-link` ends one inbox link (a forwarded or leaked one) and nothing else: the
reviewer's review links and their next inbox link keep working.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from pathlib import Path

from docflow.cli.exits import USAGE
from docflow.cli.output import print_json
from docflow.cli.stack import stack


def cmd_inbox(args: argparse.Namespace) -> int:
    from docflow.review.access.inbox_links import InboxLinks
    from docflow.review.access.keys import build_key_source
    from docflow.review.stage.inbox import InboxIndex
    from docflow.settings import load_settings

    _check_named(args)
    config = stack(args)
    load_settings.cache_clear()
    s = load_settings()
    ttl = s.inbox_link_ttl_s
    token = InboxLinks(s.links_table).issue(args.address, build_key_source(s).ring(), ttl)
    url = f"{config.review_url}/inbox/{token}"
    pending = InboxIndex(s.links_table, s.inbox_table).count(args.address)
    expires = _expiry(token.split(".")[2])
    if args.json:
        print_json({"reviewer": args.address, "url": url, "expiresAt": expires, "pending": pending})
        return 0
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(expires))
    print(f"{args.address}: {pending} waiting\n{url}\n(valid until {when})")
    return 0


def _check_named(args: argparse.Namespace) -> None:
    """An inbox link is signed for whatever it names: only an address the stack's rules file
    names (a stage's reviewer or escalate_to, a `[reviewers]` entry) gets one."""
    from docflow.local.config import StackConfig
    from docflow.rules.model import DEFAULT_RULES, load_rules

    path = StackConfig.load(Path(args.state)).extra_env.get("DOCFLOW_RULES_PATH") or None
    if args.address not in load_rules(path).addresses():
        raise ValueError(
            f"{args.address!r} is not an address the rules file ({path or DEFAULT_RULES}) "
            "names as a reviewer: no inbox link is made for it"
        )


def cmd_reviewers(args: argparse.Namespace) -> int:
    from docflow.settings import load_settings

    stack(args)
    load_settings.cache_clear()
    if args.action == "revoke-link":
        return _revoke_link(args)
    from docflow.review.access.revocation import Revocations

    done = Revocations(load_settings().links_table).revoke(args.target, by="docflow CLI")
    if args.json:
        print_json({**done, "revoked": True})
        return 0
    print(f"{args.target} revoked: their inbox and review links now answer 403")
    return 0


def _revoke_link(args: argparse.Namespace) -> int:
    """One inbox link ends; the reviewer it named is printed from its signed claims (a link
    that no longer verifies still has its stored hash deleted, and names nobody)."""
    from docflow.review.access.inbox_links import InboxLinks
    from docflow.review.access.keys import build_key_source
    from docflow.settings import load_settings

    s = load_settings()
    token = args.target.rstrip("/").rsplit("/inbox/", 1)[-1]
    if token.count(".") != 3:
        print("not an inbox link: pass its URL (…/inbox/TOKEN) or its token", file=sys.stderr)
        return USAGE
    reviewer = InboxLinks(s.links_table).revoke(token, build_key_source(s).ring())
    if args.json:
        print_json({"reviewer": reviewer, "linkRevoked": True})
        return 0
    who = f" ({reviewer}'s)" if reviewer else ""
    print(f"inbox link{who} revoked: it now answers 403; their next digest carries a new one")
    return 0


def _expiry(body: str) -> int:
    """The link's expiry, from its (signed, not secret) claims."""
    return int(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["e"])
