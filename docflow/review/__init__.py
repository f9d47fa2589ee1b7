"""Human review, in four rooms and a door.

    stage/   what a review stage is and remembers (ground floor of the room)
    access/  who may act on a link, and the links themselves
    notify/  telling reviewers: mail, the link notifier, the digest
    web/     what reviewers see and send: pages, forms, answers, templates
    desk.py  the door the callback API knocks on; it composes the token gate, the execution's
             liveness, counting a vote (`votes.py`, beside it) and a machine request's check;
             beside it too: the page's POST as a typed form and every check of it against its
             link (`decision_form.py`), and what the desk hands back for a checked link
             (`link_view.py`)

Imports run downward only: stage <- access <- notify; the door (desk and the modules beside
it) uses stage and access; web uses all of those. The whole room may import the read model and
reporting, the rules file and its detectors (docflow.rules), extract (field kinds,
corrections), pdf, storage, ids, settings and the AWS adapters; never the pipeline, the
runtime, the local stack or a handler (checked by tests/review/test_rooms.py).
"""
