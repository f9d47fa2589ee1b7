"""The read model: report schema, lifecycle transitions, the recorder (the only writer), the
event shapes it announces, the dashboard's queries and the reconcile pass. May import the AWS
adapters and document ids only; everything that reports or asks imports it."""
