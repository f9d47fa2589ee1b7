"""Bytes on a socket, for requests an HTTP client library refuses to write (malformed lines,
bad lengths, raw non-ASCII): the tests and the hostile-traffic benchmark send them."""

from __future__ import annotations

import contextlib
import socket


def raw_status(port: int, raw: bytes, timeout_s: float = 60) -> int:
    """Send `raw` to 127.0.0.1:port; the status code of the answer, or 0 when none came."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        # The server may answer and close before it has read everything.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(raw)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
    parts = answer.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
