"""What tests, benchmarks and the CLI share: uploads, the stack's mailbox read back, raw HTTP,
free loopback ports (what only tests and benchmarks use is the test kit's: tests/kit/). May
import the base (config, resources), fidelity and the product packages; imports nothing of
services or stack.
"""
