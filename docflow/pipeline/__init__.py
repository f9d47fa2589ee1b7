"""Step bodies of the orchestrator, one module per side effect, each with its step
configuration (retry policy, serialization) and the pure helpers that turn a step's result into
the next decision. May import the runtime and every product package below it (readers,
classify, extract, enrich, review, readmodel, storage; `docflow.piles` for the pile path);
never the local stack, the CLI or a handler."""
