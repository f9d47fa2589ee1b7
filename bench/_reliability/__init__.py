"""The reliability scenarios of `bench/reliability.py`, one module each, on the real local stack."""
