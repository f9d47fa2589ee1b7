"""The pile path's three Lambda handlers, one module each; their steps are in `docflow.piles`.
Like every handler package it imports `docflow` only: never the local stack, the CLI, another
handler package or the tests.

- `app`: the batcher, a durable function: claims a pile's waiting records into Bedrock batch
  inference jobs, waits for each job, and answers each document's callback.
- `schedule`: the schedule's tick, which starts this window's batcher when the pool has records.
- `job_events`: Bedrock's job state-change events, which complete the batcher's wait for a job.
"""
