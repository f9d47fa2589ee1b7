"""The supplier registry and what extraction learns from it.

`ids` finds tax ids and IBANs on a page and checks them (python-stdnum; accounts in any printed
form come from the account reader, `docflow.accounts`); `ownership` judges whose each account is
and what the page asks for; `payee` reads the pages' accounts for the bank-details check;
`model` and `store` are the registry's record and its DynamoDB table; `csv_import` loads
suppliers; `proposals` holds what reviewers propose until a second person approves it; `history`
is each supplier's append-only record of changes; `enrol` files a proposal from a review's
pages; `match` names the issuer (and says whether the page's name agrees with a checked id);
`data_evidence` is what an e-invoice states as data rather than prints (the seller's ids, the
payee accounts), keyed as printed ids are; `bank` checks the payee accounts against the
registered ones (failing closed); `duplicates` claims an invoice's duplicate keys; `audit` keeps
the audit ledger and its sampling rule; `profile` learns and reads where a supplier prints each
field (`ocr_repair` puts back the digits OCR read as letters in what it reads on a scan); `hook`
is the one call the extract step makes; `route` holds the orchestrator's pure decisions about
suppliers; `shown` the review page's sentences. Modules here may import
`docflow.rules` (the payment controls' settings), `docflow.extract` (layouts, parsers),
`docflow.readmodel.table` and the ground floor (`docflow.accounts`), never the pipeline or the
review room.
"""
