"""What a review stage is and remembers: the stage records (votes, rounds, endings), the
register of each document's newest run and its waits, the decision's read-model payload, the
presence of who is looking at a document, the callbacks that wake an execution and whether it
still waits (liveness), triage's type choices, the reviewer's inbox index, and the review
request an execution hands to its notifier.

The room's ground floor: may import nothing of docflow.review outside `stage`.
"""
