"""Tests of docflow.extract."""
