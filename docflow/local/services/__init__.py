"""What the local stack plays of AWS, each run by the supervisor: the functions' host (one
worker process per deployed version runs `host.py`, behind `docflow.local.versions.router`),
which hands the product the local runner's starter (`starter.py`: Lambda's de-duplication of a
durable execution's name, played with a claim table, since the local runner has none), the
Function URL frontend, the intake poller (the SQS event source mapping), the periodic loops
(the template's schedules, the operators' queue sampler and event consumer, on one `loop.Loop`
base) and the dashboard page (its metric points and series: `metric_points`). May import the
product packages, the base (config, resources), tools, durability and fidelity; never `stack`.
"""
