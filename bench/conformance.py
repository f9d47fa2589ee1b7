"""How closely the local stack's durable control plane matches AWS's own conformance
requirements for durable executions (PyPI: aws-durable-execution-conformance-tests 1.0.0).

Starts the local stack (`docflow up`'s runner and Invoke host, in a state folder of its own),
with the requirement handlers of conformance/handlers added to the host, then runs each
requirement of the suites step, map, wait, child, callback and wait_for_callback through the
package's validator (history through GetDurableExecutionHistory, result through
GetDurableExecution, callbacks through SendDurableExecutionCallback*).

Prints ONE JSON object (last line of stdout):
  {"total": N, "passed": N, "failed": N, "skipped": N,
   "suites": {suite: {"passed": N, "failed": N, "skipped": N}},
   "failures": [{"id": "9-16", "reason": "..."}],
   "skips": [{"id": ..., "reason": ...}],   # requirements the local stack cannot run
   "seconds": S}                            # wall time, stack start included

--raw-runner measures the testing runner without docflow/local/fidelity/history_fidelity.py.
--smoke runs a handful of requirements (one per suite the orchestrator relies on), < 60 s.
Needs `make conformance-deps` (the package declares Python >= 3.14 but runs on 3.11).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import _common

SMOKE = ("1-1", "1-11", "9-12", "2-1", "3-1", "4-1", "7-13")


def main() -> None:
    # After _common put the repo first on sys.path: `conformance` is the package, not this file.
    from conformance import SUITES
    from docflow.local.fidelity import conformance
    from docflow.local.stack import control
    from docflow.local.tools.ports import free_port_base

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="a handful of requirements")
    parser.add_argument("--suite", action="append", choices=SUITES, help="only these suites")
    parser.add_argument("--id", action="append", dest="ids", help="only these requirement ids")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--keep", help="state folder to keep (histories, logs)")
    parser.add_argument(
        "--raw-runner",
        action="store_true",
        help="without docflow's history adapter: the testing runner as it is",
    )
    args = parser.parse_args()
    _common.quiet()

    began = time.monotonic()
    wanted = conformance.requirement_files(args.suite or SUITES)
    only = set(args.ids or (SMOKE if args.smoke else ()))
    if only:
        wanted = {k: v for k, v in wanted.items() if k in only}
    state = Path(args.keep or tempfile.mkdtemp(prefix="docflow-conformance-"))
    state.mkdir(parents=True, exist_ok=True)
    port_base = free_port_base(conformance.FIRST_PORT)
    config = conformance.stack_config(state, port_base, faithful=not args.raw_runner)
    config.save()
    control.up(state)
    try:
        # The validator prints progress on stdout; the JSON line must stay the last one.
        real_stdout, sys.stdout = sys.stdout, sys.stderr
        try:
            results = conformance.run_requirements(
                wanted,
                config.runner_url,
                state / "conformance-logs.jsonl",
                state / "work",
                workers=args.workers,
            )
        finally:
            sys.stdout = real_stdout
    finally:
        control.down(state)
    _common.emit(conformance.summary(results, time.monotonic() - began))


if __name__ == "__main__":
    main()
