"""What lets the local stack survive a kill: the append-only journal, moto's state made durable
by journaling every mutating request before its answer (`durable_state`), moto's snapshot
and mail export (`moto_state`), and the durable runner's store, a journal of checkpoint
records per execution (`execution_store`, `execution_delta`; `runner_view` reads it from
outside). May import fidelity (moto's lock) and the base; imports nothing
of services or stack.
"""
