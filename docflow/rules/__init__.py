"""The ground floor's rules: what everything reads of the rules file.

`model` holds the rules file's model (document types, review stages and their policies, the
detectors to count, the `[fields]` table) with its loader and its start-up checks (a stage's
JSON is `stage_json`, a routed one's `routed`); `rules.toml`
is the file that ships; `detectors` holds the sensitive-data detectors (counted by the
classifier, located by the review page's evidence and redaction, masked by enrichment).

May import docflow.settings and docflow.extract.checks.spec (the `[fields]` table's model) only;
never a feature room (classify, pipeline, review, enrich, readmodel), a handler or the local
stack. Everything else may import it.
"""
