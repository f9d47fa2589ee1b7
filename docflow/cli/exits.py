"""The `docflow` command's exit statuses, and the errors that end a command with one of them.

One table, so that `--help`, docs/cli.md and the code say the same: scripts branch on these.
"""

from __future__ import annotations

OK = 0
# `run`/`backfill`: a document had not settled when --timeout ran out (its processing goes on).
TIMED_OUT = 1
# A usage error (argparse's own status) or an input docflow refuses (a bad --older-than...).
USAGE = 2
STOPPED = 3  # the local stack is not running (and no AWS read model is configured)
NOT_FOUND = 4  # no such document (or supplier)
DOCUMENT_FAILED = 5  # `run`/`backfill`: at least one document ended `failed`
NOT_STARTED = 6  # `up` (and the commands that start the stack): it could not start
INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT
BROKEN_PIPE = 141  # the reader of stdout went away (`docflow pending | head`), as SIGPIPE

EVERY_COMMAND = (
    f"{OK} done; {USAGE} usage error or refused input; {INTERRUPTED} interrupted; "
    f"{BROKEN_PIPE} stdout closed early"
)
# What each command adds to EVERY_COMMAND (`--help` prints both), as it behaves: only a command
# that needs the stack's services (and does not start it) says it is not running.
NOT_RUNNING = f"{STOPPED} the local stack is not running"
_ASKS = f"{NOT_RUNNING} and no AWS read model is configured (DOCFLOW_TABLE_NAME)"
_STOPPED_UNDER = f"{STOPPED} the local stack stopped while the command used it"
_STARTS = f"{NOT_STARTED} the stack was stopped and could not start (the command starts it)"
_QUIET = "the stack need not run"
_RUN = (
    f"{_STARTS}; {_STOPPED_UNDER}; {DOCUMENT_FAILED} a document failed; {TIMED_OUT} --timeout "
    "ran out with documents still processing (they go on: `docflow show DOC` later)"
)
BY_COMMAND = {
    "up": f"{NOT_STARTED} the stack could not start (a port taken: the message names it)",
    "down": f"{_QUIET}: a stopped stack is left as it is ({OK})",
    "status": f"{NOT_RUNNING} (the status is still printed)",
    "dashboard": f"{NOT_RUNNING} (the URL is still printed)",
    "deploy": f"{_QUIET}: `docflow up` starts on the live version",
    "versions": f"{_STOPPED_UNDER}; a stopped stack lists its versions (open executions "
    f"unknown) and refuses `prune` ({USAGE})",
    "mail": f"{_QUIET}: its mailbox is a file in the state folder",
    "events": f"{_QUIET}: the events it received are a file in the state folder",
    "submit": f"{_STARTS}; {_STOPPED_UNDER}",
    "run": _RUN,
    "backfill": _RUN,
    "inbox": NOT_RUNNING,
    "reviewers": NOT_RUNNING,
    "pending": _ASKS,
    "failed": _ASKS,
    "stuck": _ASKS,
    "jobs": _ASKS,
    "audit": _ASKS,
    "orders": f"{_ASKS}; {NOT_FOUND} no such order (of that supplier); {USAGE} a PO with no digit",
    "show": f"{_ASKS}; {NOT_FOUND} no such document",
    "reprocess": f"{_ASKS}; {NOT_FOUND} no such document",
    "trace": f"{_ASKS}; {NOT_FOUND} no such document",
    "suppliers": f"{_ASKS}; {NOT_FOUND} no such supplier (show, remove) or proposal "
    f"(approve, reject); {USAGE} also a file that cannot be imported, rows registered already "
    "without --replace, an approval by the proposer's person or of a conflict, --by",
}

STOPPED_MESSAGE = "the local stack is not running; `docflow up` starts it"


class StackNotRunning(RuntimeError):
    """A command needs the local stack's services and they are not there."""

    def __init__(self) -> None:
        super().__init__(STOPPED_MESSAGE)


class StackDidNotStart(RuntimeError):
    """`docflow up` gave up: the message says why and what to do."""


class DocumentNotFound(LookupError):
    """No document with that id, key or S3 URI."""

    def __init__(self, ref: str) -> None:
        super().__init__(f"no document {ref}")


def exit_codes_help(command: str) -> str:
    extra = BY_COMMAND.get(command)
    return f"exit status: {EVERY_COMMAND}" + (f"; {extra}" if extra else "")
