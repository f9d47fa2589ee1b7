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
NOT_FOUND = 4  # no such document
DOCUMENT_FAILED = 5  # `run`/`backfill`: at least one document ended `failed`
NOT_STARTED = 6  # `up` (and the commands that start the stack): it could not start
INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT
BROKEN_PIPE = 141  # the reader of stdout went away (`docflow pending | head`), as SIGPIPE

EVERY_COMMAND = (
    f"{OK} done; {USAGE} usage error or refused input; {STOPPED} the local stack is not "
    f"running; {INTERRUPTED} interrupted; {BROKEN_PIPE} stdout closed early"
)
# What each command adds to EVERY_COMMAND (`--help` prints both).
BY_COMMAND = {
    "up": f"{NOT_STARTED} the stack could not start (a port taken: the message names it)",
    "submit": f"{NOT_STARTED} the stack could not start",
    "run": f"{NOT_STARTED} the stack could not start; {DOCUMENT_FAILED} a document failed; "
    f"{TIMED_OUT} --timeout ran out with documents still processing (they go on: `docflow "
    "show DOC` later)",
    "backfill": "as `run`",
    "status": f"{STOPPED} when stopped (the status is still printed)",
    "dashboard": f"{STOPPED} when stopped (the URL is still printed)",
    "show": f"{NOT_FOUND} no such document",
    "reprocess": f"{NOT_FOUND} no such document",
    "suppliers": f"{NOT_FOUND} no such supplier (show, remove) or proposal (approve, reject); "
    f"{USAGE} also a file that cannot be imported, rows registered already without --replace, "
    "an approval by the proposer or of a conflict",
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
