"""Helpers the tests, benchmarks and CLI share to drive the local pieces."""
