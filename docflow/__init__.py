"""docflow: per-document workflows on AWS Lambda durable functions (the shared library)."""

__version__ = "0.1.0"
