"""moto's backends as provisioning left them, kept once per process and put back in a
millisecond: what every test sandbox starts from instead of provisioning the template again.

Provisioning the template's buckets, tables, queues, rules and secret is about thirty AWS calls
through botocore and moto's request parsing (150 to 600 ms on this machine); its result is a few
kilobytes of Python objects. So the first sandbox of a set of names in a process provisions and
pickles moto's backends (`take`); every later one empties moto as a new mock does and unpickles
that state (`restore`), which gives each test objects of its own, equal to freshly provisioned
ones. Pickling rather than `copy.deepcopy`: moto's backends hold thread locks, which only the
local stack's own pickler (`docflow.local.durability.moto_state`) knows how to recreate, and
unpickling a few kilobytes is faster than copying them.

The one difference from provisioning again: the signing secret's key ring is generated once per
process and set of names, not once per test, as one deployed stack keeps one key ring.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any

from moto.core.base_backend import BackendDict
from moto.core.model_instances import reset_model_data

from docflow.local.durability.moto_state import dumps, index_buckets
from docflow.local.fidelity.moto_atomic import MOTO_LOCK

# One region backend's state, by account and region, for each service moto has in use.
_Accounts = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Snapshot:
    """moto's backends at one moment: the services in use and their state, pickled together
    (so an object two backends share stays one object when restored)."""

    services: tuple[BackendDict[Any], ...]
    pickled: bytes


def take() -> Snapshot:
    """Every backend moto has in use, as it stands."""
    with MOTO_LOCK:
        services = tuple(BackendDict._instances)
        state: list[_Accounts] = [
            {account: dict(regions) for account, regions in service.items()} for service in services
        ]
        return Snapshot(services, dumps(state))


def empty() -> None:
    """Every backend emptied the way moto empties them when a mock starts: files closed, and
    each service dropped until something uses it again."""
    with MOTO_LOCK:
        BackendDict.reset()
        reset_model_data()


def restore(snapshot: Snapshot) -> None:
    """moto as it was when `snapshot` was taken, and nothing else: emptied, then the
    snapshot's state put back as new objects."""
    state: list[_Accounts] = pickle.loads(snapshot.pickled)
    with MOTO_LOCK:
        empty()
        for service, accounts in zip(snapshot.services, state, strict=True):
            for account, regions in accounts.items():
                in_account = service[account]  # registers the service as in use again
                in_account.update(regions)
        index_buckets()  # moto's bucket-to-account index, emptied by the reset
