"""Saving and restoring the local moto server's state, so `docflow down` loses nothing.

moto keeps everything in memory. Its backends are plain Python objects (S3 keys even define
their own pickling), so a snapshot is a pickle of the services the stack uses, with moto's
thread locks replaced by fresh ones on the way back in. Snapshots are taken under the lock
that serializes moto's requests, so each one is consistent.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from moto.backends import get_backend

from docflow.local.fidelity.moto_atomic import MOTO_LOCK

SERVICES = ("s3", "dynamodb", "sqs", "events", "ses", "secretsmanager", "ssm")


def _versioned_keys(lists: dict[str, list[Any]]) -> Any:
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.s3.utils import _VersionedKeyStore

    store = _VersionedKeyStore()
    for key, versions in lists.items():
        dict.__setitem__(store, key, versions)
    return store


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        # moto loads only where it is served or patched (a second of start-up elsewhere)
        from moto.s3.utils import _VersionedKeyStore

        if isinstance(obj, _VersionedKeyStore):
            # Its items() yields only each key's newest version, and pickle saves a dict
            # through items(): every older version would be lost. Save the lists whole.
            return _versioned_keys, (dict(dict.items(obj)),)
        if isinstance(obj, type(threading.RLock())):
            return threading.RLock, ()
        if isinstance(obj, type(threading.Lock())):
            return threading.Lock, ()
        if isinstance(obj, threading.Condition):
            return threading.Condition, ()
        if isinstance(obj, threading.Event):
            return threading.Event, ()
        return NotImplemented


GENERATION = "__generation__"


def dumps(value: Any) -> bytes:
    """`value` (moto's backends or anything holding them) pickled as `save` pickles them: the
    test sandboxes keep the provisioned template this way (tests/kit/moto_snapshot.py)."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


def save(path: Path, generation: int = 0, fsync: bool = True) -> None:
    with MOTO_LOCK:
        # The generation, then per service {account: {region: backend}}: pickled whole.
        state: dict[str, object] = {GENERATION: generation}
        for name in SERVICES:
            # moto types get_backend by one Literal per service; SERVICES is a tuple of str.
            backend = get_backend(name)  # type: ignore[call-overload]  # a str, not a Literal
            state[name] = {
                account: {region: backend[account][region] for region in backend[account]}
                for account in backend
            }
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as out:
            _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
            if fsync:
                out.flush()
                os.fsync(out.fileno())
        os.replace(tmp, path)  # a crash mid-write leaves the previous snapshot whole
        if not fsync:
            return
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)  # ... and the rename itself survives a crash
        finally:
            os.close(fd)


def restore(path: Path) -> int | None:
    """Load the snapshot into moto; its generation (0 for an older snapshot), None if none."""
    if not path.exists():
        return None
    with path.open("rb") as src:
        state = pickle.load(src)  # noqa: S301 - our own file, written by save() above
    generation = int(state.pop(GENERATION, 0))
    with MOTO_LOCK:
        for name, accounts in state.items():
            backend = get_backend(name)
            for account, regions in accounts.items():
                for region, value in regions.items():
                    backend[account][region] = value
        index_buckets()
    return generation


def index_buckets() -> None:
    """moto finds a bucket's account through an index kept beside its backends, not in them:
    rebuilt here, or the next CreateBucket of a restored bucket replaces it with an empty one
    (every object gone, as the stack's own provisioning did after each restart)."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.s3.models import s3_backends

    for account in s3_backends:
        for partition in s3_backends[account]:
            for name in s3_backends[account][partition].buckets:
                s3_backends.bucket_accounts[name] = (partition, account)


def export_mail(path: Path) -> None:
    """SES has no API to read sent mail back; `docflow mail` reads this file instead."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    with MOTO_LOCK:
        sent = list(ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages)
    # SES keeps no send time that moto exposes: a message is dated when an export first
    # sees it (every few seconds), and keeps that date in later exports.
    seen: dict[str, str] = {}
    with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
        seen = {m["id"]: m["sentAt"] for m in json.loads(path.read_text()) if m.get("sentAt")}
    now = datetime.now(UTC).isoformat(timespec="seconds")
    mail = [
        {
            "id": m.id,
            "from": m.source,
            "to": m.destinations.get("ToAddresses", []),
            "subject": m.subject,
            "body": m.body,
            "sentAt": seen.get(m.id, now),
        }
        for m in sent
        if hasattr(m, "subject")
    ]
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(mail, indent=1))
    os.replace(tmp, path)
