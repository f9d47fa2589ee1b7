"""What reviewers see and send: the review page (evidence, previews, redaction, templating and
the `templates/` folder), the message pages, the inbox page, the views the callback API shows
under a token (review, inbox), the forms it reads (Approve / Reject, Release) and the answers
it gives (HTML, or the same facts as JSON).

The room's top floor: may import docflow.review.stage, docflow.review.access, the desk and its
vote counter; never docflow.review.notify (nothing here sends mail).
"""
