"""The test kit: tools the tests and the benchmarks share and the product never imports (as
the durable SDK ships its test runner as a package of its own): the PDF generator, the
in-process moto sandbox, review links waited for from a mailbox. It may import the product and
the local stack; nothing in docflow imports it, and bench imports nothing else of tests/."""
