"""The path for piles: documents enriched by Bedrock batch inference instead of on-demand.

`manifest` (a pile's size, `{"expected": N}` under its folder), `pool` (the DynamoDB pool of
waiting documents and the jobs; `register` is the enrich step's submitter, `withdraw` counts a
pile document that failed before it), `sized` (a pile's counts, each written once per run),
`leases` (one batcher waiting, one claiming), `start` (starting a batcher under a
deterministic name), `batcher` (the batcher's steps: look at the pool, claim records into a
job, write its JSONL input, start the job), `jobwait` (the job's state-change event and the
poll that stands in for it), `collect` (reading the job's output and completing each
document's callback), `outcomes` (the callback results, the contract with the enrich step).
May import docflow.enrich, docflow.review.stage.callbacks, docflow.readmodel.table, docflow.intake,
docflow.ids, docflow.storage, docflow.observability, docflow.settings and docflow.aws; never
docflow.pipeline or anything under docflow.local.
"""
