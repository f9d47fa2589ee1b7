"""What sends extracted fields to a person, and what a person may send back. Pure: fields in,
reasons out. `spec` is the rules file's `[fields]` table as the checks hold fields to it (each
type's declared fields, which are required, the thresholds, the pages read, the purchase-order
tolerance); `field_checks` the checks on one document's fields (missing, unreadable,
low-confidence, amounts that disagree, dates out of order, OCR repairs), with `table_checks`
(a table's column against its fields: sums and balances, advisory tables kept off the route);
`orders` the two-way match of an invoice with the order it cites; `corrections` a reviewer's
corrections validated and put in normal form before they can decide anything.

May import `docflow.extract.declarations`, `docflow.names` and the ground floor's
`docflow.document` (each reason is the run's `Check`) only: the checks never read a page, so
neither the rules engine nor another engine is below them, and the review page and the
orchestrator run the same rules."""
