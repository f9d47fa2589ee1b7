"""Who runs a `docflow suppliers` command, as authentication says, for four eyes and for the
supplier history: never a name typed on the command line.

- Against AWS: the caller's identity as STS `GetCallerIdentity` answers it (the ARN of the IAM
  user, or of the assumed role's session), the identity AWS itself checked the credentials of.
- Against the local stack: the OS account the command runs under, looked up by its user id
  (`pwd`), not by `$USER` or `$LOGNAME`, which anyone sets (`getpass.getuser()` reads those
  first). Where there is no `pwd` (Windows) `getpass.getuser()` is all there is.

`--by NAME`, which once named who acted, is refused in both (exit 2): a typed name is a claim,
and the record of who approved a supplier is read as a fact.
"""

from __future__ import annotations

import os

BY_REFUSED = (
    "--by is refused: who acts is who you are authenticated as (against AWS the IAM principal "
    "STS names for your credentials; on the local stack your OS account), so that four eyes "
    "and the supplier history hold"
)


class NoPrincipal(ValueError):
    """Nobody authenticated to record (no AWS credentials)."""


def principal(aws: bool) -> str:
    """The authenticated identity this command runs as (see the module's doc)."""
    return caller_arn() if aws else os_account()


def caller_arn() -> str:
    from docflow import aws

    try:
        return str(aws.client("sts").get_caller_identity()["Arn"])
    except Exception as exc:  # no credentials, no network: nobody to record
        raise NoPrincipal(f"who is acting? STS could not say ({exc})") from exc


def os_account() -> str:
    try:
        import pwd
    except ImportError:  # Windows: the login name is all the OS offers a process
        import getpass

        return getpass.getuser()
    uid = os.getuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # a container's user with no entry in /etc/passwd
        return f"uid:{uid}"
