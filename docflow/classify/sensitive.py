"""What of the classifier's detector counts is sensitive data once extraction has judged whose
the IBANs are.

The classifier counts every IBAN it finds on every page. An invoice prints its issuer's own
account for payment: that is the document doing its job, not data leaking through it, so the
IBANs extraction judged the issuer's payee accounts (`docflow.suppliers.ownership`: payee
data, a pay-to line) are no reason to call the document risky. Only those judged, and only
valid ones: an IBAN on a page extraction does not read, or anyone else's, still counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

IBAN = "iban"
ISSUER = "issuer"


def beyond_issuer(
    sensitive: Mapping[str, int], judged: Iterable[Mapping[str, Any]] | None
) -> dict[str, int]:
    """The detector counts less the IBANs judged the issuer's (a detector left at 0 is
    dropped)."""
    issuer = sum(1 for i in judged or () if i.get("valid") and i.get("owner") == ISSUER)
    counts = dict(sensitive)
    if issuer and counts.get(IBAN):
        left = max(0, int(counts[IBAN]) - issuer)
        if left:
            counts[IBAN] = left
        else:
            del counts[IBAN]
    return counts
