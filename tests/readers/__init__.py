"""Tests of docflow.readers."""
