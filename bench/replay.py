"""What resuming a big document costs: the invocation after a reviewer's decision.

    python bench/replay.py            a 1,000-page document waiting on review
    python bench/replay.py --smoke    50 pages

The document is read and classified, then waits on its review callback (the execution is
suspended). The callback arrives; the runner invokes the handler again, which replays its
checkpoints up to the wait and goes on. Measured: that invocation's CPU and wall time and how
many completed operations it replayed.
"""

from __future__ import annotations

import argparse
import io
import json
import threading
import time
from typing import Any

import _common
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from reportlab.pdfgen import canvas

from docflow import aws
from docflow.ids import DocumentRef
from docflow.local.resources import LocalNames
from docflow.runtime import build_runtime, use_runtime
from orchestrator.app import handler
from tests.kit.sandbox import moto_sandbox

CONTRACT = [
    "SERVICES AGREEMENT between the parties.",
    "The parties hereby agree to the terms and conditions.",
]


def contract_pdf(pages: int) -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out)
    for n in range(pages):
        c.drawString(72, 720, CONTRACT[n % 2])
        c.drawString(72, 700, f"Page {n + 1}: governing law and signature blocks follow.")
        c.showPage()
    c.save()
    return out.getvalue()


class TimedHandler:
    """The real handler, timing each invocation (thread CPU time: the handler's own thread,
    plus the map's worker threads it waits on, which a replay does not start)."""

    def __init__(self) -> None:
        self.invocations: list[dict[str, float]] = []
        self.lock = threading.Lock()

    def __call__(self, event: Any, context: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        replayed = (
            len(getattr(event, "initial_execution_state", None).operations)
            if getattr(event, "initial_execution_state", None)
            else 0
        )
        try:
            return handler(event, context)
        finally:
            with self.lock:
                self.invocations.append(
                    {
                        "wall": time.perf_counter() - wall,
                        "cpu": time.process_time() - cpu,
                        "replayed": replayed,
                    }
                )


class CapturingNotifier:
    """The real notifier, remembering the callback ids it was handed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.callbacks: list[str] = []

    def request_review(self, request: Any) -> list[str]:
        self.callbacks.append(request.callback_id)
        return self.inner.request_review(request)


def measure(pages: int) -> dict[str, Any]:
    env = {"DOCFLOW_OCR_ENGINE": "textlayer", "DOCFLOW_MAX_PAGES": "100000"}
    with moto_sandbox(LocalNames(prefix="replay"), env) as names:
        bucket = names("DocumentBucket")
        put = aws.client("s3").put_object(Bucket=bucket, Key="big.pdf", Body=contract_pdf(pages))
        doc = DocumentRef(bucket, "big.pdf", put["VersionId"], "01")
        timed = TimedHandler()
        # The callback id comes from the notifier interface: the testing runner's own
        # wait_for_callback reads only the first page of a long history.
        notifier = CapturingNotifier(build_runtime().notifier)
        use_runtime(build_runtime().with_(notifier=notifier))
        with DurableFunctionTestRunner(handler=timed, poll_interval=0.05) as runner:
            arn = runner.run_async(input=json.dumps(doc.to_event()), execution_timeout=3600)
            deadline = time.monotonic() + 600
            while not (notifier.callbacks and timed.invocations):
                if time.monotonic() > deadline:
                    raise SystemExit("the document never reached its review")
                time.sleep(0.05)
            before = len(timed.invocations)
            runner.send_callback_success(
                notifier.callbacks[0], json.dumps({"approved": True}).encode()
            )
            result = runner.wait_for_result(arn, timeout=600)
        out = json.loads(result.result)
        if out.get("status") != "finalized" or out.get("pages") != pages:
            raise SystemExit(f"unexpected outcome: {out}")
        resume = timed.invocations[before]
        return {
            "pages": pages,
            "resume_cpu_s": round(resume["cpu"], 4),
            "resume_wall_s": round(resume["wall"], 4),
            "replayed_operations": int(resume["replayed"]),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--pages", type=int)
    args = parser.parse_args()
    _common.quiet()
    _common.emit(measure(args.pages or (50 if args.smoke else 1000)))


if __name__ == "__main__":
    main()
