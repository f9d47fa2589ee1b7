"""Tests of docflow.classify."""
