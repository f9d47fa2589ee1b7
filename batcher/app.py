"""The batcher: groups a pile's waiting documents into Bedrock batch inference jobs. Control
flow only; the steps are in `docflow.piles`.

    look at the pool -> fewer than a job's minimum? one batcher at a time waits until the
                        oldest has waited its maximum, then sends those on-demand and looks
                        again (bounded rounds); the others send only what is overdue
                     -> claim records into jobs (conditional writes) and start each job
                     -> for each job: wait for its state-change event (a callback), polling
                        GetModelInvocationJob between waits; stop it after the last round
                     -> read its answers, one step per input file, completing each
                        document's callback (an answer, or on-demand)

Started under a deterministic name (by the schedule for its window, or by the registration
that filled the pool), so a repeated start is the same execution.
"""

from __future__ import annotations

import re
from typing import Any

from aws_durable_execution_sdk_python import (
    CallbackSubmitterError,
    CallbackTimeoutError,
    DurableContext,
    durable_execution,
)
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig
from aws_durable_execution_sdk_python.retries import RetryStrategyConfig, create_retry_strategy

from docflow.piles.batcher import (
    claim_job,
    job_name,
    look_at_pool,
    parts,
    seconds_until,
    send_small_pool_on_demand,
    shifted,
    start_job,
    take_pool_wait,
)
from docflow.piles.collect import collect_part, finish_job
from docflow.piles.jobwait import parse_wait_result, poll_step, remember_callback, stop_step
from docflow.piles.outcomes import TERMINAL
from docflow.piles.shapes import BatcherResult, JobDone, JobStarted
from docflow.settings import load_settings

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,40}$")
# A small pool is looked at again after each on-demand release, this many times at most; a
# later schedule tick picks up whatever is left.
POOL_ROUNDS = 12
# Jobs one batcher starts; the rest of a very large pool waits for the next batcher.
MAX_JOBS = 20
_SUBMIT_RETRY = create_retry_strategy(
    RetryStrategyConfig(max_attempts=5, initial_delay=Duration.from_seconds(2))
)


@durable_execution
def handler(event: Any, context: DurableContext) -> BatcherResult:
    name = str((event or {}).get("name", "")) if isinstance(event, dict) else ""
    if not _NAME.match(name):
        return {"status": "refused", "reason": "the input needs a name of 1-40 [a-zA-Z0-9_-]"}
    settings = load_settings()
    on_demand = fill_or_release(
        context, name, settings.pile_min_records, settings.pile_max_wait_seconds
    )
    started: list[JobStarted] = []
    for index in range(MAX_JOBS):
        named = job_name(name, index)
        claim = context.step(claim_job(named), name=f"claim job {index}")
        if claim["count"] == 0:
            break
        started.append(context.step(start_job(named, claim["count"]), name=f"start job {index}"))
    jobs: list[JobDone] = []
    for index, job in enumerate(started):
        status = wait_for_job(
            context, index, job, settings.pile_poll_seconds, settings.pile_poll_rounds
        )
        end = context.step(
            finish_job(job["job"], job["jobArn"], status), name=f"finish job {index}"
        )
        outcomes: dict[str, int] = {}
        for part in range(parts(job["count"])):
            done = context.step(
                collect_part(job["job"], job["jobArn"], status, part),
                name=f"collect job {index} part {part}",
            )
            for outcome, n in done["outcomes"].items():
                outcomes[outcome] = outcomes.get(outcome, 0) + n
        jobs.append({**end, "jobId": job["jobId"], "records": job["count"], "outcomes": outcomes})
    return {"name": name, "status": "done", "jobs": jobs, "poolTimeouts": on_demand}


def fill_or_release(context: DurableContext, name: str, minimum: int, max_wait_s: int) -> int:
    """Until the pool holds a job's minimum: wait for its oldest record's deadline, then send
    what has waited its maximum on-demand. Returns how many went on-demand."""
    released = 0
    for round_ in range(POOL_ROUNDS):
        look = context.step(look_at_pool(), name=f"look at the pool {round_}")
        if look["pending"] == 0 or look["pending"] >= minimum:
            return released
        waiter = context.step(
            take_pool_wait(name, look["oldest"], max_wait_s), name=f"take the pool's wait {round_}"
        )
        if not waiter:
            # Another batcher waits for this pool: send only what is overdue by the clock now.
            cutoff = shifted(look["now"], -max_wait_s)
            sent = context.step(
                send_small_pool_on_demand(f"on-demand-{name}-{round_}", cutoff),
                name=f"send the overdue pool on-demand {round_}",
            )
            return released + sent["onDemand"]
        context.wait(
            Duration.from_seconds(seconds_until(look["oldest"], look["now"], max_wait_s)),
            name=f"wait for the pool {round_}",
        )
        again = context.step(look_at_pool(), name=f"look again {round_}")
        if again["pending"] >= minimum:
            return released
        # What had waited its maximum by the end of the durable wait: the oldest seen before
        # it, and anything older than the maximum by the clock now.
        cutoff = max(look["oldest"], shifted(again["now"], -max_wait_s))
        sent = context.step(
            send_small_pool_on_demand(f"on-demand-{name}-{round_}", cutoff),
            name=f"send the small pool on-demand {round_}",
        )
        released += sent["onDemand"]
    return released


def wait_for_job(
    context: DurableContext, index: int, job: JobStarted, poll_s: int, rounds: int
) -> str:
    """The job's end status: from its state-change event, or a poll when none came."""
    for round_ in range(rounds):
        try:
            raw = context.wait_for_callback(
                lambda callback_id, _ctx: remember_callback(job["job"], callback_id),
                name=f"job {index} event {round_}",
                config=WaitForCallbackConfig(
                    timeout=Duration.from_seconds(poll_s), retry_strategy=_SUBMIT_RETRY
                ),
            )
            status = parse_wait_result(raw)
            if status in TERMINAL:
                return status
        except (CallbackTimeoutError, CallbackSubmitterError):
            pass  # no event in time (or its callback id could not be stored): poll instead
        polled = context.step(poll_step(job["jobArn"]), name=f"job {index} poll {round_}")
        if polled["status"] in TERMINAL:
            return str(polled["status"])
    stopped = context.step(stop_step(job["jobArn"]), name=f"stop job {index}")
    return str(stopped["status"])
