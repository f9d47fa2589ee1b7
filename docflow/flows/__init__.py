"""The durable sub-flows: each module holds every durable operation (`step`, `map`,
`wait_for_callback`, `wait`) of one sub-flow of a document's run, so its replay contract (the
operations' names and order) reads on one screen. The step bodies they run live in
`docflow.pipeline`, with no durable call in them; `orchestrator/` calls the flows."""
