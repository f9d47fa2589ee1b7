"""Human review: the notifier interface the orchestrator hands callback ids to."""
