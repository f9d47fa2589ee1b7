"""What corrects or measures the local tools against AWS: moto's atomic writes and partition
queries, the testing runner's histories and callbacks made to match AWS's, the timers re-armed
after a restart, moto's S3 events as S3 sends them (a growing sequencer, `etag`), the runner's
invocation pool as wide as Lambda's concurrency, SQS long polling without holding moto's lock,
moto's per-request dispatch computed once, the conformance runner (the suites live in the
top-level `conformance` package) and durable stats. The lowest room: may import the base
(config) and the `conformance` package; imports nothing of durability, services or stack.
"""
