"""One version's worker: the functions' host, importing that version's code and nothing else.

Run as a script by path (never as `-m`: the stack's own `docflow` must not be imported first):

    python worker_main.py --code VERSIONS/3/code --port-file F --parent PID   serve
    python worker_main.py --code DIR --check                                  import check

Standard library only until the version's code is on sys.path. The checkout's editable install
(a meta path finder that maps `docflow` to the checkout) and any sys.path entry holding another
`docflow` are removed, so two versions' modules never mix. The worker serves the version's own
`docflow.local.services.host` on a free port, writes the port to the port file, and exits when
the router that started it is gone.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
import time

_PROJECT = (
    *("docflow", "orchestrator", "starter", "status_recorder", "callback_api", "batcher"),
    "einvoice_rules",
)


def isolate(code: str) -> None:
    here = os.path.dirname(os.path.abspath(__file__))

    def foreign(entry: str) -> bool:
        path = os.path.abspath(entry or os.getcwd())
        if path == code:
            return False
        if path == here or "__editable__" in entry:
            return True
        return any(os.path.isdir(os.path.join(path, p)) for p in _PROJECT)

    sys.path[:] = [code, *(p for p in sys.path if not foreign(p))]
    sys.meta_path[:] = [
        f for f in sys.meta_path if not str(getattr(f, "__module__", "")).startswith("__editable__")
    ]
    sys.path_hooks[:] = [
        h for h in sys.path_hooks if "__editable__" not in str(getattr(h, "__qualname__", h))
    ]
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    os.chdir(code)


def check(code: str) -> int:
    """Import every handler the version's host serves; each must come from `code`."""
    host = importlib.import_module("docflow.local.services.host")
    host.load_extra_functions()
    for name, target in sorted(host.FUNCTIONS.items()):
        module_name, attr = target.split(":")
        module = importlib.import_module(module_name)
        getattr(module, attr)
        where = os.path.abspath(str(getattr(module, "__file__", "")))
        if not where.startswith(code + os.sep):
            print(f"{name}: {module_name} came from {where}, not the version", file=sys.stderr)
            return 1
    return 0


def serve(port_file: str, parent: int) -> None:
    from http.server import ThreadingHTTPServer

    host = importlib.import_module("docflow.local.services.host")
    host.load_extra_functions()
    server = ThreadingHTTPServer(("127.0.0.1", 0), host.InvokeHandler)
    server.daemon_threads = True
    tmp = f"{port_file}.tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, port_file)

    def watch() -> None:
        # A router killed with SIGKILL cannot stop its workers: they stop themselves.
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", required=True)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--port-file")
    parser.add_argument("--parent", type=int, default=0)
    args = parser.parse_args()
    code = os.path.abspath(args.code)
    port_file = os.path.abspath(args.port_file) if args.port_file else ""
    isolate(code)  # leaves the working directory for the code's folder
    if args.check:
        sys.exit(check(code))
    serve(port_file, args.parent or os.getppid())


if __name__ == "__main__":
    main()
