"""What a document type declares and what each kind's value is: the vocabulary every engine,
check and review page shares. `model` loads the rules file's `[fields.types.<type>]` tables
(fields, tables and their columns, table checks) and refuses a bad one naming its line
(`toml_lines`); `duplicate_key` is a type's duplicate key; `kinds` the kinds a field may have;
`values` a typed or answered value in its kind's normal form, made with `parse`'s locale-aware
readers of printed dates, amounts and currencies (seven languages); `labels` (with
`labels.toml`) the nine built-in invoice fields, their kinds and printed labels.

The lowest room of `docflow/extract`: it imports nothing of docflow outside itself (libraries
only: babel, pycountry, dateparser, price-parser), so the rules file's loader, the review page
and every engine can stand on it."""
