"""AWS's durable-execution conformance requirements, run against docflow's local stack."""
