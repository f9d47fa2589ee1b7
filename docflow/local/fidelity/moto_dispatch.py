"""moto's per-request dispatch, computed once: the same answers, without the repeated work.

The local stack's moto server answers every request under one lock, so whatever moto spends
per request bounds the whole stack. Profiling a burst showed two pieces of dispatch that
never change while the server runs, recomputed on every request: the list of moto's service
folders (a directory listing and an `isdir` per folder, about two hundred) to recognise a
host name, and the handler class's method names (`inspect.getmembers`) to find the action's
method. Both are cached here, by value, once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

_PATCHED = "_docflow_cached"


def make_moto_dispatch_cached() -> None:
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto import backends
    from moto.core import responses

    if not getattr(backends.list_of_moto_modules, _PATCHED, False):
        modules = tuple(backends.list_of_moto_modules())

        def list_of_moto_modules() -> Iterable[str]:
            return modules

        setattr(list_of_moto_modules, _PATCHED, True)
        backends.list_of_moto_modules = list_of_moto_modules

    if not getattr(responses.method_names_from_class, _PATCHED, False):
        original = responses.method_names_from_class
        cached = functools.lru_cache(maxsize=None)(original)

        @functools.wraps(original)
        def method_names_from_class(clazz: object) -> list[str]:
            return list(cached(clazz))  # a copy: a caller may change its list

        setattr(method_names_from_class, _PATCHED, True)
        responses.method_names_from_class = method_names_from_class
