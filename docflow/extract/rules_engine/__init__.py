"""The `rules` engine (`engine.RulesEngine`): local and free, it reads fields by printed labels
and their positions. A page is laid out as lines of cells (`layout`); labels are found in seven
languages, fuzzily where OCR misread a letter (`matching`, and `field_labels` for declared
fields); `segments` is what each label points at; values are read by kind (`printed`,
`identifiers` with their OCR repairs, `tables` under a header found by `table_header`); the
amounts are chosen so that they reconcile (`amounts`) and cross-checked against the page
(`crosscheck`); `evidence` is what the whole document says (language, date order, currency);
`vendor` the issuer's name where no label names it; `declared_fields` the fields that have no
built-in labels; `calibration` (with `calibration.json`) turns each value's evidence into a
confidence.

May import `docflow.extract.declarations`, the engine interface (`docflow.extract.base`) and
the readers' `Word`; never another engine or the checks. The other engines borrow its readers
of dates and document evidence, so it stands below `docflow/extract/engines/`."""
