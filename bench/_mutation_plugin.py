"""A pytest plugin for the mutation runs only (`[tool.mutmut] pytest_add_cli_args` loads it
with `-p bench._mutation_plugin`): Hypothesis derandomized, with no deadline and no health
checks. A mutant's verdict must come from its code, not from the machine's load (on a loaded
2-core machine a property test's generation "is slow" and fails its health check) nor from
the examples one run happened to draw."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mutation", derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile("mutation")
