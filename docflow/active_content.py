"""Active content: what a PDF viewer may run, or reach outside the file for, on its own when
the file is opened, a page shown, a bookmark or a link clicked, a form filled (issue 56, item 6).

A flag for the people who open the original, not a refusal: a form's calculation script is
common and harmless in a reader that does not run it. The kinds:

    javascript  a JavaScript action (`/S /JavaScript`, or any action with `/JS`), or a
                document-level script (the names tree's `/JavaScript`)
    launch      a Launch action: a program or a file the viewer opens
    xfa         an XFA form (`/AcroForm /XFA`): its scripts run in the viewers that render it
    external    an action that reaches outside the file: SubmitForm (a form's data sent to an
                address), URI (a link), GoToR and GoToE (another or an embedded file),
                ImportData (data read from a file)
    unknown     the walk could not look everywhere (its bound on looks or depth was reached,
                or the file has a corner pypdf cannot read): the file may hold more, and
                "none" is never said of it

Where the walk (docflow/pdf_actions.py) looks: the catalog's `/OpenAction` and `/AA`; every
page's `/AA` and each of its annotations' `/A` and `/AA`; every bookmark's `/A` (`/Outlines`,
through `/First` and `/Next`); the names tree's `/JavaScript`; the form's `/XFA` and every
field's `/A` and `/AA` and its kids'; each action's `/Next` chain. It is iterative (an explicit
stack, no recursion) and remembers the objects it has seen, so a cycle or a chain a million
actions long costs no more than its bound. Here only the kinds and how they are said, so that
what only says them (`docflow show`, the review page) imports no PDF library.
"""

from __future__ import annotations

from collections.abc import Iterable

ACTIVE_CONTENT = "active-content"
JAVASCRIPT, LAUNCH, XFA, EXTERNAL, UNKNOWN = "javascript", "launch", "xfa", "external", "unknown"

# What each kind is called where a person reads it (`said`).
_NAMES = {
    JAVASCRIPT: "javascript",
    LAUNCH: "a launch action (it opens a program or a file)",
    XFA: "an XFA form (its scripts run in the viewer)",
    EXTERNAL: "external actions (a link, a form's submission, another file)",
}


def said(kinds: Iterable[str]) -> str:
    """The flag as a person reads it: "the PDF holds javascript", "...; it could not be fully
    checked, so it may hold more", or "the PDF could not be fully checked for active
    content"."""
    kinds = list(kinds)
    held = [_NAMES.get(k, k) for k in kinds if k != UNKNOWN]
    if not held:
        return "the PDF could not be fully checked for active content" if kinds else ""
    out = f"the PDF holds {' and '.join(held)}"
    return f"{out}; it could not be fully checked, so it may hold more" if UNKNOWN in kinds else out


def short(kinds: Iterable[str]) -> str:
    """The flag in a line of `docflow show`: the kinds held, then "could not be fully
    checked" for `unknown` (`javascript and xfa; could not be fully checked`)."""
    kinds = list(kinds)
    held = " and ".join(k for k in kinds if k != UNKNOWN)
    if UNKNOWN not in kinds:
        return held
    return f"{held}; could not be fully checked" if held else "could not be fully checked"
