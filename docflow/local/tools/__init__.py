"""What tests, benchmarks and the CLI share: the in-process moto sandbox, the PDF generator,
uploads, the stack's mailbox, raw HTTP, free loopback ports. May import the base (config,
resources), fidelity and the product packages; imports nothing of services or stack.
"""
