"""Hostile review traffic: thousands of generated requests against the callback API's Function
URL while real reviews wait. Every request is invalid: bad, tampered, forged or expired
tokens, replays of a used link, a superseded version's genuine link, wrong methods, huge
bodies, odd encodings, malformed HTTP; aimed at the page, the page previews and the download;
and at the inbox: tampered, expired, forged and other-purpose inbox links, a genuine inbox
link used as a review link, another reviewer's page cursor, wrong methods.

Expect zero 5xx, zero requests accepted, and zero callbacks: the waiting runs are still waiting,
their links still open, and the used link's run decided once. Then each waiting run is
approved through its real link, to show the links were live all along.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _reliability.corpus import contract, post
from _reliability.harness import Stack
from docflow.ids import DocumentRef
from docflow.local.tools.raw_http import raw_status
from docflow.review.access.inbox_links import InboxLinks
from docflow.review.access.keys import build_key_source
from docflow.review.access.signing import KeyRing, TokenClaims, mint
from docflow.review.web.inbox_views import encode_page
from docflow.settings import load_settings
from tests.kit.mailbox import wait_for_links

SEED = 7


@dataclass(frozen=True)
class Attack:
    kind: str
    method: str
    path: str
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    raw: bytes | None = None  # sent as is, for requests http.client refuses to write


def _link(stack: Stack, doc: DocumentRef) -> str:
    """The first reviewer's token for the run's first stage, as the reviewer got it: by mail."""
    links = wait_for_links(stack.config.state, 1, run_id=doc.run_id, stage_index=0)
    return links[0].token


def _claims_of(token: str) -> TokenClaims:
    body = token.split(".")[2]
    return TokenClaims.from_wire(
        json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    )


def inbox_attacks(
    inbox: str, live: list[str], foreign_cursor: str, ring: KeyRing, rng: random.Random
) -> list[Callable[[], Attack]]:
    """Against `/inbox/{token}`: every one must list nothing (403, or 400/405), never 5xx."""

    def inbox_tampered() -> Attack:
        i = rng.randrange(len(inbox))
        swap = "A" if inbox[i] != "A" else "B"
        return Attack("inbox-tampered", "GET", f"/inbox/{inbox[:i]}{swap}{inbox[i + 1 :]}")

    def inbox_expired() -> Attack:
        claims = _claims_of(inbox)
        old = TokenClaims(
            **{**claims.__dict__, "expires_at": int(time.time()) - rng.randint(1, 10**6)}
        )
        return Attack("inbox-expired", "GET", f"/inbox/{mint(old, ring)}")

    def inbox_forged() -> Attack:
        claims = _claims_of(inbox)
        other = TokenClaims(**{**claims.__dict__, "reviewer": "mallory@example.com"})
        signed_by = rng.choice([ring, KeyRing(current="k1", keys={"k1": rng.randbytes(32)})])
        return Attack("inbox-forged", "GET", f"/inbox/{mint(other, signed_by)}")

    def inbox_other_purpose() -> Attack:
        if rng.random() < 0.5:  # a genuine review link at the inbox's door
            return Attack("inbox-other-purpose", "GET", f"/inbox/{rng.choice(live)}")
        # A genuine inbox link at the review page's door (and its previews, its POST).
        if rng.random() < 0.5:
            return Attack("inbox-other-purpose", "POST", f"/review/{inbox}", b"decision=approve")
        return Attack("inbox-other-purpose", "GET", f"/review/{inbox}/pages/1")

    def inbox_foreign_page() -> Attack:
        return Attack("inbox-foreign-page", "GET", f"/inbox/{inbox}?page={foreign_cursor}")

    def inbox_wrong_method() -> Attack:
        method = rng.choice(["POST", "PUT", "DELETE", "PATCH"])
        return Attack("inbox-wrong-method", method, f"/inbox/{inbox}", b"x=1")

    return [
        inbox_tampered,
        inbox_expired,
        inbox_forged,
        inbox_other_purpose,
        inbox_foreign_page,
        inbox_wrong_method,
    ]


def attacks(
    live: list[str], used: str, superseded: str, ring: KeyRing, rng: random.Random
) -> list[Callable[[], Attack]]:
    """Generators, one per kind of hostile request; each call makes a fresh one."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."

    def under(token: str) -> str:
        """The page, a page's preview, or the download: the same checks guard all three."""
        return rng.choice(["", "/pages/1", f"/pages/{rng.randint(1, 3)}", "/original"])

    def previews() -> Attack:
        # Genuine live links, but pages that do not exist or cannot be named.
        page = rng.choice(["0", "-1", "99", "abc", "1.png", "9" * 12, "%00", "1/../2", ""])
        return Attack("preview-path", "GET", f"/review/{rng.choice(live)}/pages/{page}")

    def used_access() -> Attack:
        # The decided link: its page, previews and download are refused with the decision.
        return Attack("used-access", "GET", f"/review/{used}{under(used)}")

    def superseded_link() -> Attack:
        # A genuine link of a run that a newer version replaced.
        if rng.random() < 0.5:
            return Attack("superseded", "GET", f"/review/{superseded}{under(superseded)}")
        decision = rng.choice(["approve", "reject"])
        body = f"decision={decision}&reason=other".encode()
        return Attack("superseded", "POST", f"/review/{superseded}", body)

    def wrong_method_under() -> Attack:
        token = rng.choice(live)
        path = rng.choice([f"/review/{token}/pages/1", f"/review/{token}/original"])
        return Attack("wrong-method", rng.choice(["POST", "PUT", "DELETE"]), path, b"x=1")

    def garbage() -> Attack:
        token = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 12, 64, 180, 900])))
        method = rng.choice(["GET", "POST"])
        return Attack("bad-token", method, f"/review/{token}", b"decision=approve")

    def tampered() -> Attack:
        token = rng.choice(live)
        i = rng.randrange(len(token))
        swap = rng.choice([c for c in alphabet if c != token[i]])
        bad = f"{token[:i]}{swap}{token[i + 1 :]}"
        if rng.random() < 0.4:
            return Attack("tampered", "GET", f"/review/{bad}{under(bad)}")
        decision = rng.choice(["approve", "reject"])
        return Attack("tampered", "POST", f"/review/{bad}", f"decision={decision}".encode())

    def forged() -> Attack:
        claims = _claims_of(rng.choice(live))
        changed = TokenClaims(
            **{
                **claims.__dict__,
                "expires_at": claims.expires_at + 10**6,
                "reviewer": rng.choice(["mallory@example.com", claims.reviewer]),
                "stage_index": claims.stage_index + rng.choice([0, 1]),
            }
        )
        kid = rng.choice([ring.current, "k-unknown"])
        fake_ring = KeyRing(current=kid, keys={kid: rng.randbytes(32)})
        return Attack("forged", "POST", f"/review/{mint(changed, fake_ring)}", b"decision=approve")

    def expired() -> Attack:
        # Signed with the service's own key, but out of date: only the expiry is wrong.
        claims = _claims_of(rng.choice(live))
        old = TokenClaims(
            **{**claims.__dict__, "expires_at": int(time.time()) - rng.randint(1, 10**6)}
        )
        token = mint(old, ring)
        if rng.random() < 0.4:
            return Attack("expired", "GET", f"/review/{token}{under(token)}")
        return Attack("expired", "POST", f"/review/{token}", b"decision=approve")

    def replayed() -> Attack:
        decision = rng.choice(["approve", "reject"])
        return Attack("replayed", "POST", f"/review/{used}", f"decision={decision}".encode())

    def wrong_method() -> Attack:
        token = rng.choice(live)
        path = rng.choice([f"/review/{token}", f"/callbacks/{token}"])
        method = rng.choice(
            ["PUT", "DELETE", "PATCH", "OPTIONS"] + (["GET"] if "callbacks" in path else [])
        )
        return Attack("wrong-method", method, path, b"decision=approve")

    def huge_body() -> Attack:
        size = rng.choice([17 * 1024, 100 * 1024, 1024 * 1024] * 20 + [7 * 1024 * 1024])
        body = b"decision=approve&comment=" + b"A" * size
        return Attack("huge-body", "POST", f"/review/{rng.choice(live)}", body)

    def odd_encoding() -> Attack:
        body = rng.choice(
            [
                b"decision=\xff\xfe\xfd",
                b"decision=approve%00",
                b"decision=APPROVE",
                b"decision=appr%C3%B6ve",
                b"decision=%E2%80%8Bapprove",
                b"decision%5B%5D=approve",
                "decision=approve".encode("utf-16"),
                b"\xef\xbb\xbfdecision=approve",
                b"decision=%C0%AFapprove",
                b"decision=" + b"%" * 40,
                b'{"decision": "approve"}',
            ]
        )
        return Attack("odd-encoding", "POST", f"/review/{rng.choice(live)}", body)

    def odd_path() -> Attack:
        path = rng.choice(
            [
                "/review/%FF%FE%00",
                "/review/..%2F..%2Fcallbacks%2Fx",
                "/review/%C0%AF%C0%AF",
                "/review/" + "%41" * 2000,
                "/review//" + rng.choice(live),
                "/review/" + rng.choice(live) + "/extra",
                "/callbacks/" + "x" * 5000,
                "/%2e%2e/%2e%2e/etc/passwd",
                "/review/v1.k1..",
            ]
        )
        return Attack("odd-path", rng.choice(["GET", "POST"]), path, b"decision=approve")

    def machine() -> Attack:
        stamp = rng.choice(
            ["", "not-a-number", str(int(time.time()) - 86400), str(int(time.time()))]
        )
        body = json.dumps({"approved": True, "reviewer": "bot"}).encode()
        headers = (("X-Docflow-Timestamp", stamp), ("X-Docflow-Signature", "sha256=" + "0" * 64))
        return Attack("machine", "POST", f"/callbacks/{rng.choice(live)}", body, headers)

    def malformed_http() -> Attack:
        token = rng.choice(live).encode()
        raw = rng.choice(
            [
                b"POST /review/" + token + b" HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
                b"POST /review/" + token + b" HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                b"POST /review/" + token + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                b"\r\n10\r\ndecision=approve\r\n0\r\n\r\n",
                b"GET /review/\xc3\x28\xff HTTP/1.1\r\nHost: x\r\n\r\n",
                b"POST /review/"
                + token
                + b" HTTP/1.1\r\nHost: x\r\nX-Long: "
                + b"a" * 70000
                + b"\r\n\r\n",
                b"GARBAGE\r\n\r\n",
            ]
        )
        return Attack("malformed-http", "RAW", "", raw=raw)

    return [
        garbage,
        tampered,
        forged,
        expired,
        replayed,
        wrong_method,
        huge_body,
        odd_encoding,
        odd_path,
        machine,
        malformed_http,
        previews,
        used_access,
        superseded_link,
        wrong_method_under,
    ]


def send(port: int, attack: Attack) -> tuple[int, bytes]:
    """The response's status (0 when none came back) and the start of its body."""
    try:
        if attack.raw is not None:
            return raw_status(port, attack.raw), b""
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            connection.putrequest(attack.method, attack.path, skip_accept_encoding=True)
            for key, value in attack.headers:
                connection.putheader(key, value)
            if attack.body or attack.method == "POST":
                connection.putheader("Content-Type", "application/x-www-form-urlencoded")
                connection.putheader("Content-Length", str(len(attack.body)))
            connection.endheaders()
            if attack.body:
                # The server may answer (413) without reading it all.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    connection.send(attack.body)
            response = connection.getresponse()
            return response.status, response.read(300)
        finally:
            connection.close()
    except (OSError, http.client.HTTPException):
        return 0, b""


def run(smoke: bool) -> dict[str, Any]:
    total = 500 if smoke else 10_000
    rng = random.Random(SEED)
    with Stack.running() as stack:
        docs = stack.upload_all([(f"hostile/contract-{n}.pdf", contract(n)) for n in range(5)])
        stack.wait_settled(docs, 120, frozenset({"pending-review"}))
        live_docs, used_doc, old_doc = docs[:3], docs[3], docs[4]
        live = [_link(stack, d) for d in live_docs]
        used = _link(stack, used_doc)
        assert post(stack.config.review_url + f"/review/{used}", {"decision": "approve"}) == 200
        stack.wait_settled([used_doc], 60, frozenset({"finalized"}))
        # New bytes under the last one's key: its genuine link now belongs to a replaced run.
        superseded = _link(stack, old_doc)
        newer = stack.upload(old_doc.key, contract(99))
        stack.wait_settled([newer], 120, frozenset({"pending-review"}))

        settings = load_settings()
        ring = build_key_source(settings).ring()
        reviewer = _claims_of(live[0]).reviewer
        inbox = InboxLinks(settings.links_table).issue(reviewer, ring, 3600)
        # A page cursor of somebody else's inbox (well formed, so only the owner check stops it).
        foreign = encode_page({"pk": "INBOX#mallory@example.com", "sk": "2026"})
        makers = attacks(live, used, superseded, ring, rng)
        makers += inbox_attacks(inbox, live, foreign, ring, rng)
        plan = [rng.choice(makers)() for _ in range(total)]
        began = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda a: send(stack.config.review_port, a), plan))
        seconds = time.monotonic() - began
        statuses = [status for status, _ in answers]
        # A 5xx is a failure to explain: what was asked, what came back, what the host logged.
        server_errors = [
            {
                "kind": attack.kind,
                "method": attack.method,
                "path": attack.path[:120],
                "status": status,
                "body": body.decode("utf-8", "replace"),
            }
            for attack, (status, body) in zip(plan, answers, strict=True)
            if status >= 500
        ]
        host_errors = _logged_errors(stack.config.state) if server_errors else []

        after = {d.run_id: stack.state(d) for d in live_docs}
        decided = sum(
            1
            for d in live_docs
            for h in stack.history(d)
            if h["status"] in ("approved", "rejected")
        )
        still_waiting = sum(
            1
            for d in live_docs
            if after[d.run_id].get("status") == "pending-review"
            and stack.executions().get(d.execution_name) == "RUNNING"
        )
        used_decisions = [
            h["status"] for h in stack.history(used_doc) if h["status"] in ("approved", "rejected")
        ]
        used_final = stack.state(used_doc).get("status")
        old_ended = [
            h["payload"].get("reason")
            for h in stack.history(old_doc)
            if h["runId"] == old_doc.run_id and h["status"] == "archived"
        ]
        old_decided = sum(
            1
            for h in stack.history(old_doc)
            if h["runId"] == old_doc.run_id and h["status"] in ("approved", "rejected")
        )
        newer_state = stack.state(newer)
        approvals = [
            post(stack.config.review_url + f"/review/{t}", {"decision": "approve"}) for t in live
        ]
        finished = stack.wait_settled(live_docs, 60, frozenset({"finalized"}))

    by_kind: dict[str, Counter[str]] = {}
    for attack, status in zip(plan, statuses, strict=True):
        by_kind.setdefault(attack.kind, Counter())[_klass(status)] += 1
    overall = Counter(_klass(s) for s in statuses)
    report = {
        "requests": total,
        "requests_per_second": round(total / seconds, 1),
        "responses": dict(overall),
        "by_kind": {kind: dict(counts) for kind, counts in sorted(by_kind.items())},
        "server_errors_5xx": overall.get("5xx", 0),
        "server_errors": server_errors,
        "host_errors": host_errors,
        "accepted_2xx": overall.get("2xx", 0),
        "no_response": overall.get("none", 0),
        "callbacks_from_hostile_requests": decided + (len(used_decisions) - 1) + old_decided,
        "superseded_run_ended": old_ended,
        "newer_run_waiting": newer_state.get("runId") == newer.run_id
        and newer_state.get("status") == "pending-review",
        "waiting_runs_still_waiting": still_waiting,
        "used_link_run": used_final,
        "real_approvals_after": approvals.count(200),
        "finalized_after_real_approval": sum(
            1 for d in live_docs if finished[d.run_id].get("status") == "finalized"
        ),
    }
    report["passed"] = (
        report["server_errors_5xx"] == 0
        and report["accepted_2xx"] == 0
        and report["no_response"] == 0
        and report["callbacks_from_hostile_requests"] == 0
        and still_waiting == len(live_docs)
        and used_final == "finalized"
        and old_ended == ["superseded"]
        and report["newer_run_waiting"]
        and report["finalized_after_real_approval"] == len(live_docs)
    )
    return report


def _logged_errors(state: Path, lines: int = 40) -> list[str]:
    """The last lines of the stack's logs that name an error or a traceback."""
    found: list[str] = []
    for log in sorted(state.rglob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if any(word in line for word in ("Traceback", "Error", "ERROR", "error")):
                found.append(f"{log.name}: {line[:300]}")
    return found[-lines:]


def _klass(status: int) -> str:
    return f"{status // 100}xx" if status else "none"
