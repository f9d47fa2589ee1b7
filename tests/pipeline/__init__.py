"""Tests of docflow.pipeline."""
