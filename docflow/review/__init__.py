"""Human review: signed links and their store, the notifier that mails them, the stage records
(votes, rounds), the register of each document's newest run, the review desk the callback API
runs, and the review page (templates, evidence, previews, redaction); a reviewer's inbox (its
table of what waits on them, inbox links, claims, revocations, the digest job). May
import the read model and reporting, classify (detectors), extract (field kinds, corrections),
pdf, storage, settings and the AWS adapters; never the pipeline, the runtime, the local stack
or a handler."""
