"""Who may act on a link, and the links themselves: signing (tokens and their `TokenClaims`),
the signing keys, review links (minted once, each with a single use that a decision spends),
inbox links, revocation of a reviewer, the refusals a request gets (and their messages), the
token gate every request passes, and the check of a machine's signed request.

May import docflow.review.stage; never notify, web or the desk.
"""
