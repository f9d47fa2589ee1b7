"""What lets the local stack survive a kill: the append-only journal, moto's state made durable
by journaling every mutating request before its answer (`durable_state`), and moto's snapshot
and mail export (`moto_state`). May import fidelity (moto's lock) and the base; imports nothing
of services or stack.
"""
