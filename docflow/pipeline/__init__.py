"""Step bodies of the orchestrator, one module per side effect."""
