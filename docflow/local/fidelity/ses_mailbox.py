"""The local SES's mailbox, written out the moment SES accepts a message.

SES has no API to read sent mail back, so the stack writes what moto's SES accepted to a file
that `docflow mail`, `docflow run` and the tests read. Written only every few seconds, that
file lagged the read model: a run could be `pending-review`, its link id recorded, while its
mail was not in the file yet (a `docflow mail` right after `docflow run --json` missed it).
Once installed, every message moto's SES accepts calls the stack's export before SendEmail's
answer goes out, as a real mailbox holds a message once SES said it was sent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_PATCHED = "_docflow_mailbox"
_SENDS = ("send_email", "send_raw_email", "send_templated_email", "send_bulk_templated_email")
_export: list[Callable[[], None]] = []  # the one export this process runs, if any


def export_on_send(export: Callable[[], None] | None) -> None:
    """Have moto's SES backend (in this process) call `export` after each message it accepts
    (None: no longer). Installed after recovery: a journal replay re-sends every message, and
    one export after it is enough."""
    # moto loads only where it is served or patched (a second of start-up elsewhere)
    from moto.ses.models import SESBackend

    _export[:] = [export] if export is not None else []
    for name in _SENDS:
        original = getattr(SESBackend, name)
        if not getattr(original, _PATCHED, False):
            setattr(SESBackend, name, _exporting(original))


def _exporting(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def send(self: Any, *args: Any, **kwargs: Any) -> Any:
        sent = original(self, *args, **kwargs)
        for export in _export:
            try:
                export()
            except OSError as exc:  # the mail was sent: a file not written fails no send
                print(f"mailbox export failed: {exc!r}", flush=True)
        return sent

    setattr(send, _PATCHED, True)
    return send
