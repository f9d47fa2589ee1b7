"""How far a layout profile's field is trusted: its streak of agreeing reviews, and the graded
record of its own reads.

From a layout's first review on, its profile reads each later document of that layout before
the person does (a shadow read, checkpointed with the extract step). The person's final
values grade each read field by field (`grade`): a hit when the person kept the value the
profile read (or left empty a field the profile says the layout never prints), a miss when
they changed it; a field the profile could not read is not graded. The record is kept on the
entry (`graded`: hits, misses, the last outcome, when and by which run).

A field is trusted (`trusted`) when it is not suspended, `min_confirmations` agreeing reviews
located it (the same label, shape and page: `agrees`), those reviews include at least
`min_confirmations - 1` graded hits of its own shadow read (with 2: the first review teaches,
the second must find the profile's read right), and, where `[audit] distinct_reviewers`
asks, that many people confirmed it. So a profile is never trusted on what it was told, only
on what it predicted.

A review that locates a field elsewhere starts a new streak (its count and record begin
again), unless the field's record is established (ESTABLISHED graded hits): then the
disagreeing review suspends it instead (`suspendedWhy = "streak"`), the learn step tells the
operators, and only an operator's `docflow suppliers profile reset` lets it learn again. Two
misses suspend a field too (`suspendedWhy = "misses"`); a person confirming the field where
it was while it is so suspended restores it, its streak begun again and its graded record
kept (so an established field stays established through its misses).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import cast

from rapidfuzz import fuzz

from docflow.extract.declarations.kinds import AMOUNT
from docflow.extract.declarations.labels import READ_AS
from docflow.extract.declarations.parse import fold
from docflow.suppliers.shapes import Graded, Profile, ProfileEntry

MAX_MISSES = 2
LABEL_SCORE = 90.0  # as profile.LABEL_SCORE: a label OCR misread a letter of is the label
ESTABLISHED = 5  # graded hits after which a disagreeing streak suspends instead of replacing
KEEP_RUNS = 50  # run ids remembered, so a step that runs twice learns once
KEEP_REVIEWERS = 10
HIT, MISS = "hit", "miss"
BY_MISSES, BY_STREAK = "misses", "streak"

# What an entry says of where a field is printed (the rest counts how far it is trusted).
WHERE = ("label", "region", "page", "shape", "absent", "offset", "value")


def same_value(name: str, read: str, final: str) -> bool:
    """The value a profile read and the one a person finalized are the same value: amounts
    as numbers, a name folded (case, accents, spacing), anything else by its upper case."""
    if READ_AS.get(name) == AMOUNT:
        try:
            return Decimal(read) == Decimal(final)
        except InvalidOperation:
            return False
    if name == "vendor_name":
        return " ".join(fold(read).split()) == " ".join(fold(final).split())
    return read.strip().upper() == final.strip().upper()


def grade(name: str, read: str | None, final: str) -> str:
    """One field's outcome: HIT, MISS, or "" (the profile read nothing: nothing to grade).
    `read`: the shadow read ("" when the profile says the layout prints no such field);
    `final`: the value the person approved ("" for none)."""
    if read is None:
        return ""
    if read == "":
        return HIT if not final else MISS
    if not final:
        return MISS
    return HIT if same_value(name, read, final) else MISS


def agrees(old: ProfileEntry, new: ProfileEntry) -> bool:
    """Two entries read a field the same way: after the same label, on the same page, of the
    same shape (or both say the layout prints none, or both are the same constant, the
    issuer's name). The region may move a little."""
    if bool(old.get("absent")) or bool(new.get("absent")):
        return bool(old.get("absent")) and bool(new.get("absent"))
    if old.get("value") or new.get("value"):
        return fold(str(old.get("value", ""))) == fold(str(new.get("value", "")))
    return (
        same_label(str(old.get("label", "")), str(new.get("label", "")))
        and str(old.get("shape")) == str(new.get("shape"))
        and int(old.get("page", 1)) == int(new.get("page", 1))
    )


def same_label(a: str, b: str) -> bool:
    """Two labels are one where they fold alike, or OCR misread a letter of one (a rapidfuzz
    ratio of LABEL_SCORE and the same digits: `IVA 21%` is not `IVA 27%`)."""
    fa, fb = " ".join(fold(a).split()), " ".join(fold(b).split())
    if fa == fb:
        return True
    digits = [c for c in fa if c.isdigit()] == [c for c in fb if c.isdigit()]
    return digits and fuzz.ratio(fa, fb) >= LABEL_SCORE


def hits(entry: ProfileEntry) -> int:
    return int((entry.get("graded") or {}).get("hits", 0))


def established(entry: ProfileEntry) -> bool:
    return hits(entry) >= ESTABLISHED


def trusted(entry: ProfileEntry, min_confirmations: int, distinct_reviewers: int = 1) -> bool:
    """The entry may give a value: not suspended, confirmed by `min_confirmations` agreeing
    reviews, at least `min_confirmations - 1` of which found its own shadow read right, and
    (where asked) confirmed by `distinct_reviewers` people. Untrusted, it gives nothing; it
    may still doubt a rules reading it disagrees with (docflow.suppliers.hook)."""
    if entry.get("suspended") or int(entry.get("confirmed", 0)) < min_confirmations:
        return False
    if hits(entry) < min_confirmations - 1:
        return False
    people = entry.get("reviewers") or []
    return distinct_reviewers <= 1 or len(people) >= distinct_reviewers


def _graded(old: Graded, outcome: str, run_id: str, at: str) -> Graded:
    if outcome not in (HIT, MISS):
        return old
    hit = outcome == HIT
    return Graded(
        hits=int(old.get("hits", 0)) + (1 if hit else 0),
        misses=int(old.get("misses", 0)) + (0 if hit else 1),
        last=outcome,
        at=at,
        run=run_id,
    )


def _people(old: Sequence[str], reviewer: str) -> list[str]:
    who = reviewer.strip().lower()
    kept = list(old)
    if who and who not in kept:
        kept.append(who)
    return kept[-KEEP_REVIEWERS:]


def updated(
    profile: Profile,
    run_id: str,
    learned: Mapping[str, ProfileEntry | None],
    outcomes: Mapping[str, str],
    reviewer: str = "",
    at: str = "",
) -> Profile | None:
    """The profile after one approved review, or None when this run was applied already.

    `learned`: field -> the entry the confirmed value gives (None: not located).
    `outcomes`: field -> HIT, MISS or "" (`grade` of the shadow read against the person's
    value). `reviewer`: who approved (for `[audit] distinct_reviewers`); `at`: when.

    `confirmed` counts the agreeing reviews since the entry was last replaced or restored,
    `since` names the review that began the streak; a miss confirms nothing and adds no
    reviewer. An entry is replaced, never changed in place.
    """
    runs = list(profile.get("runs", []))
    if run_id in runs:
        return None
    fields = dict(profile.get("fields") or {})
    for name, entry in learned.items():
        old = fields.get(name, {})
        outcome = outcomes.get(name, "")
        if old.get("suspendedWhy") == BY_STREAK:
            continue  # an operator decides (docflow suppliers profile reset)
        record = old.get("graded") or Graded()
        miss = outcome == MISS
        misses = int(old.get("misses", 0)) + (1 if miss else 0)
        suspended = bool(old.get("suspended")) or misses >= MAX_MISSES
        restored = bool(old.get("suspended")) and not miss
        if restored:
            suspended, misses = False, 0  # a person confirmed the field again
        kept = cast("Mapping[str, object]", old)
        base = entry or cast("ProfileEntry", {k: kept[k] for k in WHERE if k in kept})
        if not base:
            continue
        if old and not restored and (entry is None or agrees(old, entry)):
            confirmed = int(old.get("confirmed", 0)) + (0 if miss else 1)
            since = str(old.get("since", ""))
            record = _graded(record, outcome, run_id, at)
            people = list(old.get("reviewers") or [])
            people = people if miss else _people(people, reviewer)
        elif old and established(old) and entry is not None and not agrees(old, entry):
            # An established record is not replaced by a new streak, nor moved somewhere else
            # while its misses suspend it (by a review that restores it or one more miss): the
            # disagreement is an operator's to settle.
            graded = _graded(record, outcome, run_id, at)
            fields[name] = cast(
                "ProfileEntry",
                {**old, "graded": graded, "suspended": True, "suspendedWhy": BY_STREAK},
            )
            continue
        elif restored and (entry is None or agrees(old, entry)):
            # Confirmed where it was: the streak begins again, its graded record stays (a
            # record wiped by two misses and one confirmation would let the next streak
            # elsewhere replace an established field unasked).
            confirmed, since, people = 1, run_id, _people([], reviewer)
            record = _graded(record, outcome, run_id, at)
        else:
            confirmed, since, people = 1, run_id, _people([], reviewer)
            record = Graded()
        where = {k: v for k, v in base.items() if k in WHERE}
        new = {
            **where,  # where the layout prints it, then how far it is trusted
            "confirmed": confirmed,
            "misses": misses,
            "suspended": suspended,
            "since": since,
            "graded": record,
            "reviewers": people,
        }
        if suspended:
            new["suspendedWhy"] = BY_MISSES
        fields[name] = cast("ProfileEntry", new)
    return Profile(fields=fields, runs=[*runs, run_id][-KEEP_RUNS:])


def newly_suspended(before: Profile, after: Profile) -> list[str]:
    """The fields `after` suspends for a disagreeing streak that `before` did not."""
    old = before.get("fields") or {}
    return sorted(
        name
        for name, entry in (after.get("fields") or {}).items()
        if entry.get("suspendedWhy") == BY_STREAK
        and (old.get(name) or {}).get("suspendedWhy") != BY_STREAK
    )


def reset(profile: Profile, name: str) -> Profile | None:
    """The profile with `name`'s entry gone (an operator's reset): the next review of the
    layout teaches it anew. None when it has no such entry."""
    fields = dict(profile.get("fields") or {})
    if name not in fields:
        return None
    del fields[name]
    return Profile(**{**profile, "fields": fields})
