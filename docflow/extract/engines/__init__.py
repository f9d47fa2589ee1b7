"""The field engines that ask an AWS service, each behind the one interface
(`docflow.extract.base.FieldEngine`): `bedrock` (Converse with one forced tool whose input
schema is the type's declaration: `schema`), `textract_document` (AnalyzeDocument's queries
and tables, its blocks read by `textract_blocks`) and `textract_expense` (AnalyzeExpense's
summary fields). `answer_rows` holds a table an engine answered to the declaration row by row.
An answer that does not parse is a missing or rejected field, never an error: the checks send
the document to a person.

May import `docflow.extract.declarations`, the engine interface, the rules engine's readers of
dates and document evidence (`rules_engine.evidence`, so every engine reads a date in the
document's day/month order), the readers' throttle policy, `docflow.aws` and
`docflow.converse`; never the checks."""
