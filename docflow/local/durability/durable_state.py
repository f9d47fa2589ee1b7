"""The local moto server's state, durable before any answer: a write-ahead journal of requests.

Every request that may change moto's state is appended to a journal, as received, together with
what moto drew while answering it: the seed of its random source (version ids, message ids,
receipt handles, SES message ids all come from moto's one seedable `mock_random`) and every
reading of its clock (timestamps, visibility deadlines). The answer goes out only once the
record is fsynced; concurrent requests share one fsync (group commit, see journal.py). On
start the last snapshot is restored and the journal replayed through the same WSGI app, with
the same seeds and clock readings, so moto comes back with exactly what it acknowledged: the
same objects and version ids, items, messages and receipt state, sent mail.

Requests are serialized under MOTO_LOCK (moto_atomic.py), so the journal's order is the order
moto applied them in, and replay is deterministic. The journal is compacted into a snapshot
(moto_state.py) on clean shutdown, after a recovery, and when it grows past a bound, so no
write pays for the whole state.

Why not a disk-backed service instead: moto's DynamoDB, SQS and SES have no well-kept
disk-backed stand-in that keeps moto's behaviour (conditional writes, redrive, receipt
handles), and S3 alone is not where the other two thirds of the loss came from.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import pickle
import random
import sys
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import parse_qs

from docflow.local.durability import moto_state
from docflow.local.durability.journal import Journal, fsync_dir, read_records
from docflow.local.fidelity.moto_atomic import MOTO_LOCK, make_moto_server_serial
from docflow.local.fidelity.request_counts import count_moto_request

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

COMPACT_PAST_BYTES = 256 * 1024 * 1024


class MotoRecovered(TypedDict, total=False):
    """What a start brought moto's state back from (none of it when moto is not journaled)."""

    snapshotGeneration: int
    journalRecordsReplayed: int
    journalRecordsRefused: int
    tornRecordDropped: bool


class MotoJournalStats(TypedDict):
    journalBytes: int
    journalRecords: int
    journalFsyncs: int
    compactions: int


_PATCHED = "_docflow_journaled"

# Requests that change nothing, by X-Amz-Target or query-protocol Action: they skip the
# journal (but still wait for what they may have read to be durable). This is the local
# stack's journal of moto's requests, not the pipeline, the recorder or the dashboard, and it
# sends no request itself: these are names it recognises in requests others send to moto. A
# Scan is among them only because a local-stack snapshot or a test's or benchmark's table
# walk may send one; the pipeline, the recorder and the dashboard Query keys and indexes.
READ_ONLY_ACTIONS = frozenset(
    {
        "GetItem", "BatchGetItem", "Query", "Scan", "DescribeTable", "ListTables",
        "DescribeTimeToLive", "DescribeContinuousBackups", "TransactGetItems",
        "GetQueueUrl", "GetQueueAttributes", "ListQueues", "ListQueueTags",
        "GetSecretValue", "DescribeSecret", "ListSecrets",
        "GetParameter", "GetParameters", "GetParametersByPath",
        "DescribeRule", "ListRules", "ListTargetsByRule", "DescribeEventBus",
        "GetSendQuota", "GetSendStatistics", "ListIdentities",
        "GetIdentityVerificationAttributes", "ListVerifiedEmailAddresses",
    }
)  # fmt: skip
_ENVIRON_KEYS = (
    "REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE",
    "CONTENT_LENGTH", "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR",
    "REQUEST_URI", "RAW_URI", "wsgi.url_scheme", "wsgi.input_terminated",
)  # fmt: skip


# ---- moto's clock, recorded and replayed -------------------------------------------------
_local = threading.local()
_real_utcnow: Any = None


def _utcnow() -> datetime:
    mode = getattr(_local, "mode", None)
    if mode == "record":
        value = _real_utcnow()
        _local.readings.append(value)
        return value
    if mode == "replay":
        readings = _local.readings
        if _local.position < len(readings):
            _local.last = readings[_local.position]
            _local.position += 1
        return _local.last
    return _real_utcnow()


def _pin_moto_clock() -> None:
    """Every moto timestamp comes from moto.core.utils.utcnow (unix_time and the ISO helpers
    call it there; services import it by name): point each binding at _utcnow."""
    global _real_utcnow

    from moto.core import utils

    if _real_utcnow is None:
        _real_utcnow = utils.utcnow
    for name in moto_state.SERVICES:
        for part in ("models", "responses", "urls"):
            with contextlib.suppress(ImportError):
                importlib.import_module(f"moto.{name}.{part}")
    for name, module in list(sys.modules.items()):
        if name.startswith("moto") and getattr(module, "utcnow", None) is _real_utcnow:
            module.utcnow = _utcnow  # type: ignore[attr-defined]  # a module mypy sees untyped


# ---- the journaled WSGI entry --------------------------------------------------------------
@dataclass
class _Durability:
    journal: Journal | None = None
    replaying: bool = False


_STATE = _Durability()


def _action(environ: WSGIEnvironment, body: bytes) -> str | None:
    target = environ.get("HTTP_X_AMZ_TARGET")
    if target:
        return str(target).rsplit(".", 1)[-1]
    if environ.get("REQUEST_METHOD") == "POST" and b"Action=" in body[:200]:
        found = parse_qs(body[:2000].decode("latin-1")).get("Action")
        return found[0] if found else None
    return None


def _may_change_state(environ: WSGIEnvironment, body: bytes) -> bool:
    if environ.get("REQUEST_METHOD") in ("GET", "HEAD", "OPTIONS"):
        return False
    return _action(environ, body) not in READ_ONLY_ACTIONS


def _read_body(environ: WSGIEnvironment) -> bytes:
    stream = environ.get("wsgi.input")
    if stream is None:
        return b""
    length = environ.get("CONTENT_LENGTH")
    if length:
        body = stream.read(int(length))
    elif environ.get("wsgi.input_terminated"):
        body = stream.read()
    else:
        body = b""
    environ["wsgi.input"] = io.BytesIO(body)
    return bytes(body)


def _request_record(environ: WSGIEnvironment) -> WSGIEnvironment:
    kept = {k: environ[k] for k in _ENVIRON_KEYS if k in environ}
    kept.update({k: v for k, v in environ.items() if k.startswith("HTTP_")})
    return kept


def _journaled(inner: Any) -> Any:
    @functools.wraps(inner)
    def call(self: Any, environ: WSGIEnvironment, start_response: Any) -> Any:
        if _STATE.replaying:
            return inner(self, environ, start_response)
        body = _read_body(environ)
        count_moto_request(environ, body)  # for `docflow status`: what documents cost
        if _STATE.journal is None:
            return inner(self, environ, start_response)
        request = _request_record(environ)  # as received, before moto touches the environ
        mutating = _may_change_state(environ, body)
        # moto loads only where it is served or patched (a second of start-up elsewhere)
        from moto.moto_api._internal import mock_random

        # The journal is read under the lock: a compaction swaps it under the same lock.
        with MOTO_LOCK:
            journal = _STATE.journal
            if journal is None:  # the stack is stopping
                return inner(self, environ, start_response)
            if not mutating:
                seq = journal.last  # anything this read can see is in the journal by now
                answer = inner(self, environ, start_response)
            else:
                seed = random.getrandbits(63)
                mock_random.seed(seed)
                _local.mode, _local.readings = "record", []
                try:
                    answer = inner(self, environ, start_response)
                finally:
                    readings, _local.mode = _local.readings, None
                    record = pickle.dumps(
                        (seed, readings, request, body), protocol=pickle.HIGHEST_PROTOCOL
                    )
                    seq = journal.append(record)
        journal.wait_durable(seq)  # the answer goes out only once what it reports is on disk
        return answer

    setattr(call, _PATCHED, True)
    return call


def _install_wsgi_hook() -> None:
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    make_moto_server_serial()
    current = DomainDispatcherApplication.__call__
    if not getattr(current, _PATCHED, False):
        # The journal wraps moto's WSGI entry: every request goes through it.
        DomainDispatcherApplication.__call__ = _journaled(current)  # type: ignore[method-assign]  # patch


# ---- replay ----------------------------------------------------------------------------------
def _replay(records: list[bytes]) -> int:
    """Apply each journaled request again, with its seed and clock readings. Returns how many
    moto refused with an error (the same answer it gave the first time)."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.moto_api._internal import mock_random
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    app = DomainDispatcherApplication(create_backend_app)
    errors = 0
    _STATE.replaying = True
    try:
        for raw in records:
            seed, readings, request, body = pickle.loads(raw)  # noqa: S301 - our own journal
            environ = {
                **request,
                "wsgi.input": io.BytesIO(body),
                "wsgi.errors": sys.stderr,
                "wsgi.version": (1, 0),
                "wsgi.multithread": False,
                "wsgi.multiprocess": False,
                "wsgi.run_once": False,
            }
            status: list[str] = []
            with MOTO_LOCK:
                mock_random.seed(seed)
                _local.mode, _local.readings, _local.position = "replay", readings, 0
                _local.last = readings[-1] if readings else _real_utcnow()
                try:
                    answer = app(environ, lambda s, h, e=None, out=status: out.append(s))
                    for _ in answer:
                        pass
                    getattr(answer, "close", lambda: None)()
                except Exception:
                    errors += 1
                finally:
                    _local.mode = None
            if status and not status[0].startswith(("2", "3")):
                errors += 1
    finally:
        _STATE.replaying = False
    return errors


# ---- the files -------------------------------------------------------------------------------
class DurableMoto:
    """The snapshot (moto.pickle, generation g) plus the journal written since (journal.g)."""

    def __init__(self, state: Path, compact_past_bytes: int = COMPACT_PAST_BYTES) -> None:
        self.state = state
        self.snapshot = state / "moto.pickle"
        self.compact_past_bytes = compact_past_bytes
        self.generation = 0
        self.journal: Journal | None = None
        self.compactions = 0

    def _journal_path(self, generation: int) -> Path:
        return self.state / f"moto.journal.{generation}"

    def recover(self) -> MotoRecovered:
        """Restore the snapshot, replay its journal, compact; then journal every request."""
        _install_wsgi_hook()
        _pin_moto_clock()
        self.generation = moto_state.restore(self.snapshot) or 0
        records, _, torn = read_records(self._journal_path(self.generation))
        refused = _replay(records)
        report: MotoRecovered = {
            "snapshotGeneration": self.generation,
            "journalRecordsReplayed": len(records),
            "journalRecordsRefused": refused,
            "tornRecordDropped": torn,
        }
        if records or torn:
            self.compact()
        else:
            self.journal = Journal(self._journal_path(self.generation))
        for stale in self.state.glob("moto.journal.*"):
            if stale != self._journal_path(self.generation):
                stale.unlink(missing_ok=True)
        _STATE.journal = self.journal
        return report

    def compact(self) -> None:
        """A snapshot of everything journaled so far, then a fresh, empty journal."""
        with MOTO_LOCK:
            old = self.journal
            if old is not None:
                old.sync()
            moto_state.save(self.snapshot, generation=self.generation + 1)
            self.generation += 1
            self.journal = Journal(self._journal_path(self.generation))
            if _STATE.journal is not None:
                _STATE.journal = self.journal
            if old is not None:
                old.close()
                old.path.unlink(missing_ok=True)
                fsync_dir(self.state)
            self.compactions += 1

    def maybe_compact(self) -> bool:
        if self.journal is not None and self.journal.size > self.compact_past_bytes:
            self.compact()
            return True
        return False

    def close(self) -> None:
        self.compact()
        _STATE.journal = None
        if self.journal is not None:
            self.journal.close()

    def stats(self) -> MotoJournalStats:
        journal = self.journal
        return {
            "journalBytes": journal.size if journal else 0,
            "journalRecords": journal.records if journal else 0,
            "journalFsyncs": journal.fsyncs if journal else 0,
            "compactions": self.compactions,
        }
