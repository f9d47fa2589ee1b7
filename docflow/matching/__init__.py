"""Invoices matched to their orders: the pure logic and the order store (docs/matching.md).

    keys      which order a document cites: its supplier and number in their normal forms
    lines     a document's lines, and invoice lines paired with the order's (by item number,
              else by words and price) and held to the tolerances
    verdict   one invoice against its order, its receipts and what is left of the order: the
              differences, the basis (lines, or the header where lines were not read with
              confidence) and the consumption it takes from the order's balance
    records   the order store's items (an order, a receipt, a bill against it, a waiting
              invoice) and the match as a run checkpoints and records it
    store     those items in DynamoDB (the only module here that talks to AWS, through
              docflow.dynamo): conditional writes and consistent reads

May import the ground floor, the rules file's model (`[matching]`), extract (value parsing)
and suppliers (the normal forms of a supplier's name and a number). The pipeline's step bodies
(docflow/pipeline/matching.py) and the durable flow (docflow/flows/matching.py) use it; it
imports neither.
"""
