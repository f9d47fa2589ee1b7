"""The durable sub-flows: each module holds every durable operation of one sub-flow, its step
names and order readable on one screen; step bodies live in docflow/pipeline.

    matching   an invoice waits for its order (and goods receipts), is matched to them, and
               takes its share of the order; an order's or a receipt's run wakes the invoices
               waiting for it (docs/matching.md)

May import the pipeline and everything the pipeline may; the orchestrator calls a flow in a
line or two, and nothing in docflow imports a flow.
"""
